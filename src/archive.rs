//! The task run's downloads as one zip archive, built in memory, and the
//! viewer's reading of such an archive (by the core's one zip reader).
//!
//! Written with `rawzip` 0.5 (no dependencies; it writes the archive
//! structure and the CRC and leaves compression to the caller) with stored
//! entries: the artifacts are text of a few hundred KB at most, so no
//! compression crate is linked into the page. Each entry carries the run's
//! end time (UTC). Entries are streamed, so each has a data descriptor after
//! its bytes; zip tools read sizes from the central directory (unzip, 7-Zip,
//! Python's zipfile and the OS archivers do).
//!
//! Measured on the release bundle (`trunk build --release`, wasm-opt -Oz),
//! Wasm before/after: `zip` 7.3 without default features added 54.4 KB raw /
//! 33.9 KB gzipped; `rawzip` adds 34.6 KB raw / 25.1 KB gzipped.

use rawzip::time::UtcDateTime;
use rawzip::{CompressionMethod, ZipArchiveWriter};
use std::io::Write;

/// A zip archive holding `files` (name, text) in that order, each stamped
/// with `ended_at_ms` (ms since the Unix epoch).
pub fn zip_files(files: &[(String, String)], ended_at_ms: u64) -> Result<Vec<u8>, String> {
    let time = UtcDateTime::from_unix(i64::try_from(ended_at_ms / 1000).unwrap_or(i64::MAX));
    let mut out = Vec::new();
    let mut archive = ZipArchiveWriter::new(&mut out);
    for (name, text) in files {
        let failed = |e: &dyn std::fmt::Display| format!("could not add {name} to the zip: {e}");
        let (mut entry, config) = archive
            .new_file(name.as_str())
            .compression_method(CompressionMethod::STORE)
            .last_modified(time)
            .start()
            .map_err(|e| failed(&e))?;
        let mut writer = config.wrap(&mut entry);
        writer.write_all(text.as_bytes()).map_err(|e| failed(&e))?;
        let (_, descriptor) = writer.finish().map_err(|e| failed(&e))?;
        entry.finish(descriptor).map_err(|e| failed(&e))?;
    }
    archive
        .finish()
        .map_err(|e| format!("could not finish the zip: {e}"))?;
    Ok(out)
}

/// The files of a zip archive (name, bytes), for the viewer, read by the
/// core's one zip reader. Only stored (uncompressed) entries are read, as the
/// page writes them (so no decompressor is in the page's first load); a
/// compressed entry is an error that names it.
pub fn unzip(bytes: &[u8]) -> Result<Vec<(String, Vec<u8>)>, String> {
    let entries = evalpage_core::import::zip_entries(bytes)
        .map_err(|(e, _)| format!("not a readable zip: {e}"))?;
    entries
        .into_iter()
        .map(|e| match e.stored() {
            Some(data) => Ok((e.name, data.to_vec())),
            None => Err(format!(
                "{} is compressed in the zip; the viewer reads the page's own (stored) zips: unzip it and open its files",
                e.name
            )),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn files_come_back_out_in_order_with_the_run_time() {
        let files = vec![
            ("report.json".to_string(), "{\"a\": 1}\n".to_string()),
            ("report.md".to_string(), "# 报告\n".to_string()),
        ];
        // 2026-11-26T01:10:04Z
        let bytes = zip_files(&files, 1_795_655_404_123).expect("zip");
        let archive = rawzip::ZipArchive::from_slice(&bytes).expect("readable");
        let mut entries = archive.entries();
        for (name, text) in &files {
            let e = entries.next_entry().expect("entry").expect("present");
            assert_eq!(e.file_path().as_ref(), name.as_bytes());
            assert_eq!(e.compression_method(), CompressionMethod::STORE);
            let t = e.last_modified();
            assert_eq!((t.year(), t.month(), t.day()), (2026, 11, 26));
            assert_eq!((t.hour(), t.minute(), t.second()), (1, 10, 4));
            let local = archive.get_entry(e.wayfinder()).expect("data");
            assert_eq!(local.data(), text.as_bytes());
            assert_eq!(e.crc32(), rawzip::crc32(text.as_bytes()));
        }
        assert!(entries.next_entry().expect("end").is_none());
    }

    #[test]
    fn unzip_gives_back_what_zip_files_wrote() {
        let files = vec![
            ("a.json".to_string(), "{}".to_string()),
            ("b.md".to_string(), "# b".to_string()),
        ];
        let bytes = zip_files(&files, 0).expect("zip");
        let back = unzip(&bytes).expect("unzip");
        assert_eq!(
            back,
            vec![
                ("a.json".to_string(), b"{}".to_vec()),
                ("b.md".to_string(), b"# b".to_vec())
            ]
        );
        assert!(unzip(b"not a zip").is_err());
    }

    #[test]
    fn an_empty_archive_is_valid() {
        let bytes = zip_files(&[], 0).expect("zip");
        let archive = rawzip::ZipArchive::from_slice(&bytes).expect("readable");
        assert_eq!(archive.entries_hint(), 0);
    }
}
