//! Helpers for the CLI's end-to-end tests: the real `evalpage` binary, scratch
//! directories that clean up after themselves, and a real mock-server process
//! on a free port that is killed when its guard drops.

#![allow(dead_code)]

use serde_json::Value;
use std::io::{BufRead, BufReader, Read};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::thread;
use std::time::{Duration, Instant};

/// The `evalpage` binary under test.
pub fn evalpage() -> Command {
    Command::new(env!("CARGO_BIN_EXE_evalpage"))
}

/// The bundled ten-question demo dataset.
pub fn demo_dataset() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../www/demo/demo_dataset.jsonl")
}

/// A directory under the system temp dir, removed on drop.
pub struct Scratch(pub PathBuf);

impl Scratch {
    /// A fresh, empty, uniquely named directory.
    pub fn new(name: &str) -> Scratch {
        static N: AtomicUsize = AtomicUsize::new(0);
        let n = N.fetch_add(1, Ordering::SeqCst);
        let dir = std::env::temp_dir().join(format!(
            "evalpage-cli-test-{name}-{}-{n}",
            std::process::id()
        ));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("create scratch dir");
        Scratch(dir)
    }

    /// A path inside the directory.
    pub fn join(&self, name: &str) -> PathBuf {
        self.0.join(name)
    }

    /// Writes a file inside the directory and returns its path.
    pub fn write(&self, name: &str, text: &str) -> PathBuf {
        let path = self.join(name);
        std::fs::write(&path, text).expect("write scratch file");
        path
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// A running `evalpage mock-server`, killed on drop.
pub struct Mock {
    child: Child,
    /// Base URL as printed, e.g. `http://127.0.0.1:40123/v1`.
    pub url: String,
    /// Where the server's stderr goes, for `start_logged`.
    log: Option<Scratch>,
}

impl Mock {
    /// Starts a mock server on a free port with these extra flags.
    pub fn start(flags: &[&str]) -> Mock {
        Mock::spawn(flags, None)
    }

    /// Starts a mock server with `--log`, its stderr kept in a file.
    pub fn start_logged(flags: &[&str]) -> Mock {
        let mut all = vec!["--log"];
        all.extend_from_slice(flags);
        Mock::spawn(&all, Some(Scratch::new("mock-log")))
    }

    fn spawn(flags: &[&str], log: Option<Scratch>) -> Mock {
        let stderr = match &log {
            Some(dir) => Stdio::from(std::fs::File::create(dir.join("stderr")).expect("log file")),
            None => Stdio::null(),
        };
        let mut child = evalpage()
            .args(["mock-server", "--port", "0"])
            .args(flags)
            .stdout(Stdio::piped())
            .stderr(stderr)
            .spawn()
            .expect("spawn mock-server");
        let stdout = child.stdout.take().expect("mock stdout");
        let mut line = String::new();
        BufReader::new(stdout)
            .read_line(&mut line)
            .expect("read startup line");
        let url = line
            .trim()
            .strip_prefix("evalpage mock-server listening on ")
            .unwrap_or_else(|| panic!("unexpected startup line: {line:?}"))
            .to_string();
        Mock { child, url, log }
    }

    /// Stops the server and returns what it logged (empty without `start_logged`).
    pub fn stop_and_read_log(mut self) -> String {
        let _ = self.child.kill();
        let _ = self.child.wait();
        self.log
            .as_ref()
            .and_then(|dir| std::fs::read_to_string(dir.join("stderr")).ok())
            .unwrap_or_default()
    }
}

impl Drop for Mock {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The chat completion an endpoint answers to a request body (what a batch
/// engine or an agent would be sent back).
pub fn chat_completion(url: &str, body: &Value) -> Value {
    let text = ureq::post(&format!("{url}/chat/completions"))
        .header("content-type", "application/json")
        .send(body.to_string())
        .expect("the endpoint answers")
        .body_mut()
        .read_to_string()
        .expect("body");
    serde_json::from_str(&text).expect("a chat completion")
}

/// A free loopback port for a server a test starts (bound, then released).
pub fn free_port() -> u16 {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
    listener.local_addr().expect("addr").port()
}

/// A loopback port nothing listens on, for as long as the test process
/// lives: a socket is bound to it and never listens, so a connection is
/// refused and no other server of the suite can be given the port (a port
/// bound then released was, once, handed to the next test's server).
pub fn closed_port() -> u16 {
    use socket2::{Domain, Socket, Type};
    let socket = Socket::new(Domain::IPV4, Type::STREAM, None).expect("a socket");
    let any: std::net::SocketAddr = "127.0.0.1:0".parse().expect("an address");
    socket.bind(&any.into()).expect("bind");
    let port = socket
        .local_addr()
        .ok()
        .and_then(|a| a.as_socket())
        .expect("a bound address")
        .port();
    std::mem::forget(socket);
    port
}

/// Longest a test lets one `evalpage run` take before killing it.
pub const RUN_LIMIT: Duration = Duration::from_secs(120);

/// Runs a command to its end, killing it and failing the test past `RUN_LIMIT`
/// (a hung run must fail the test, not hang the suite).
pub fn finish(mut cmd: Command) -> Output {
    let mut child = cmd
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn evalpage");
    let stdout = drain(child.stdout.take());
    let stderr = drain(child.stderr.take());
    let deadline = Instant::now() + RUN_LIMIT;
    let status = loop {
        if let Some(status) = child.try_wait().expect("wait") {
            break status;
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            panic!("evalpage did not finish within {RUN_LIMIT:?}");
        }
        thread::sleep(Duration::from_millis(20));
    };
    Output {
        status,
        stdout: stdout.join().unwrap_or_default(),
        stderr: stderr.join().unwrap_or_default(),
    }
}

/// Reads a child's pipe to its end on a thread, so a full pipe never blocks it.
fn drain<R: Read + Send + 'static>(pipe: Option<R>) -> thread::JoinHandle<Vec<u8>> {
    thread::spawn(move || {
        let mut buf = Vec::new();
        if let Some(mut p) = pipe {
            let _ = p.read_to_end(&mut buf);
        }
        buf
    })
}

/// Runs `evalpage run` with these arguments and returns what it printed.
pub fn run(args: &[&str]) -> Output {
    let mut cmd = evalpage();
    cmd.arg("run").args(args);
    finish(cmd)
}

/// Runs `dataset` with the demo provider into `out_dir`, plus `extra` flags.
pub fn run_demo(dataset: &Path, out_dir: &Path, extra: &[&str]) -> Output {
    let mut cmd = evalpage();
    cmd.args(["run", "--provider", "demo", "--dataset"])
        .arg(dataset)
        .arg("--out")
        .arg(out_dir)
        .args(extra);
    finish(cmd)
}

/// stdout and stderr as text.
pub fn texts(out: &Output) -> (String, String) {
    (
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// Asserts a zero exit, showing stderr otherwise.
pub fn assert_ok(out: &Output) {
    let (stdout, stderr) = texts(out);
    assert!(
        out.status.success(),
        "exit {:?}\nstdout:\n{stdout}\nstderr:\n{stderr}",
        out.status
    );
}

/// Reads a JSON Lines file, one value per non-blank line; a line that is
/// not JSON fails the test with the file and the line.
pub fn read_jsonl(path: &Path) -> Vec<Value> {
    std::fs::read_to_string(path)
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{}: {e}: {l}", path.display())))
        .collect()
}

/// Reads a JSON file.
pub fn read_json(path: &Path) -> Value {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// A report with the parts that differ between identical runs nulled out.
pub fn comparable(mut report: Value) -> Value {
    let exp = &mut report["report"]["experiment"];
    exp["run"] = Value::Null;
    exp["run_config"] = Value::Null;
    for e in report["report"]["error_cases"]
        .as_array_mut()
        .into_iter()
        .flatten()
    {
        e["trace_id"] = Value::Null;
        e["latency_ms"] = Value::Null;
    }
    report
}

/// A file of `examples/agent/`.
pub fn agent_example(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../examples/agent")
        .join(name)
}

/// `evalpage run --task T --dataset D --out O` with `extra` flags, which
/// must succeed; its `results.jsonl`.
pub fn run_task(task: &Path, dataset: &Path, out: &Path, extra: &[&str]) -> Vec<Value> {
    let mut cmd = evalpage();
    cmd.args(["run", "--task"])
        .arg(task)
        .arg("--dataset")
        .arg(dataset)
        .arg("--out")
        .arg(out)
        .args(extra);
    let o = finish(cmd);
    assert_ok(&o);
    read_jsonl(&out.join("results.jsonl"))
}

/// Results by sample id.
pub fn by_id(results: &[Value]) -> std::collections::BTreeMap<String, &Value> {
    results
        .iter()
        .map(|r| (r["sample_id"].as_str().unwrap_or("").to_string(), r))
        .collect()
}

/// An event log's records of one `record_type`.
pub fn records<'a>(log: &'a str, t: &'a str) -> Vec<Value> {
    log.lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .filter(|r| r["record_type"] == t)
        .collect()
}
