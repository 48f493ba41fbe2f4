//! The built-in judge prompts (`judges/*.yaml`) as JSON in `OUT_DIR`, for
//! `judge::prompt` to read with serde_json: a bundle that only uses built-in
//! judges (the page's dialog mode) then links no YAML parser. The YAML files
//! stay the source a person reads and edits; a test checks each JSON gives the
//! same prompt as its YAML read by `JudgePrompt::parse`.

use std::path::Path;
use std::{env, fs};

fn main() {
    println!("cargo:rerun-if-changed=judges");
    let out = Path::new(&env::var("OUT_DIR").expect("cargo sets OUT_DIR")).join("judges");
    fs::create_dir_all(&out).expect("create OUT_DIR/judges");
    let mut files: Vec<_> = fs::read_dir("judges")
        .expect("read judges/")
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "yaml"))
        .collect();
    files.sort();
    for path in files {
        println!("cargo:rerun-if-changed={}", path.display());
        let text = fs::read_to_string(&path).expect("read a judge prompt");
        let value: serde_json::Value = serde_yaml_ng::from_str(&text)
            .unwrap_or_else(|e| panic!("{}: not YAML: {e}", path.display()));
        let json = serde_json::to_string(&value).expect("JSON text");
        fs::write(
            out.join(path.with_extension("json").file_name().expect("name")),
            json,
        )
        .expect("write the JSON");
    }
}
