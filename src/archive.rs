//! The task run's downloads as one zip archive, built in memory.
//!
//! Entries are stored, not compressed: the `zip` crate is used without default
//! features, so no compression crate is linked into the page (the artifacts are
//! text of a few hundred KB at most, and a zip tool opens stored entries the
//! same way). Each entry's time is the run's end time (UTC), since without its
//! `time` feature the crate would write 1980-01-01.

use std::io::{Cursor, Write};
use zip::write::SimpleFileOptions;
use zip::{CompressionMethod, DateTime, ZipWriter};

/// A zip archive holding `files` (name, text) in that order, each stamped
/// with `ended_at_ms` (ms since the Unix epoch).
pub fn zip_files(files: &[(String, String)], ended_at_ms: u64) -> Result<Vec<u8>, String> {
    let mut options =
        SimpleFileOptions::default().compression_method(CompressionMethod::Stored);
    if let Some(time) = dos_time(ended_at_ms) {
        options = options.last_modified_time(time);
    }
    let mut zip = ZipWriter::new(Cursor::new(Vec::new()));
    for (name, text) in files {
        zip.start_file(name.as_str(), options)
            .map_err(|e| format!("could not add {name} to the zip: {e}"))?;
        zip.write_all(text.as_bytes())
            .map_err(|e| format!("could not write {name} into the zip: {e}"))?;
    }
    let cursor = zip
        .finish()
        .map_err(|e| format!("could not finish the zip: {e}"))?;
    Ok(cursor.into_inner())
}

/// The zip (MS-DOS) time of a Unix time in ms, from its RFC 3339 text
/// (`2026-11-26T01:10:03.477Z`); `None` outside the years zip can hold (1980-2107).
fn dos_time(ms: u64) -> Option<DateTime> {
    let text = evalpage_core::timefmt::rfc3339_ms(ms);
    let num = |from: usize, to: usize| text.get(from..to)?.parse::<u16>().ok();
    let (year, month, day) = (num(0, 4)?, num(5, 7)?, num(8, 10)?);
    let (hour, minute, second) = (num(11, 13)?, num(14, 16)?, num(17, 19)?);
    let small = |v: u16| u8::try_from(v).ok();
    DateTime::from_date_and_time(
        year,
        small(month)?,
        small(day)?,
        small(hour)?,
        small(minute)?,
        small(second)?,
    )
    .ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Read;

    #[test]
    fn files_come_back_out_in_order_with_the_run_time() {
        let files = vec![
            ("report.json".to_string(), "{\"a\": 1}\n".to_string()),
            ("report.md".to_string(), "# 报告\n".to_string()),
        ];
        // 2026-11-26T01:10:04Z
        let bytes = zip_files(&files, 1_795_655_404_000).expect("zip");
        let mut archive = zip::ZipArchive::new(Cursor::new(bytes)).expect("readable");
        assert_eq!(archive.len(), 2);
        for (i, (name, text)) in files.iter().enumerate() {
            let mut entry = archive.by_index(i).expect("entry");
            assert_eq!(entry.name(), name);
            assert_eq!(entry.compression(), CompressionMethod::Stored);
            let t = entry.last_modified().expect("time");
            assert_eq!((t.year(), t.month(), t.day()), (2026, 11, 26));
            assert_eq!((t.hour(), t.minute(), t.second()), (1, 10, 4));
            let mut back = String::new();
            entry.read_to_string(&mut back).expect("text");
            assert_eq!(&back, text);
        }
    }

    #[test]
    fn times_zip_cannot_hold_are_left_at_the_default() {
        assert!(dos_time(0).is_none(), "1970 is before zip's 1980 epoch");
        assert!(dos_time(1_795_655_404_000).is_some());
        assert!(zip_files(&[], 0).is_ok_and(|b| !b.is_empty()));
    }
}
