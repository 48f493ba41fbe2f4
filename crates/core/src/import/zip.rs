//! The one zip reader of the CLI and the page: the entries of a zip (an
//! Inspect `.eval` log, the page's own archive of a run's files), read by
//! its central directory with rawzip; a zip cut off before its directory is
//! walked by its local headers instead, so the entries before the cut are
//! kept. Entries are stored, deflated (miniz_oxide) or zstd-compressed
//! (ruzstd), each decompressed only when it is read: a reader that takes
//! stored entries only ([`Entry::stored`], the page's first load) links no
//! decompressor.

use rawzip::{CompressionMethod, ZipArchive};
use serde_json::Value;

/// One entry, its data still compressed.
pub struct Entry<'a> {
    /// Its position in the zip, 0-based.
    pub index: usize,
    /// Its path in the zip.
    pub name: String,
    method: CompressionMethod,
    data: &'a [u8],
    size: u64,
}

/// The largest entry this decompresses (an Inspect sample with its
/// transcript is far below it; a bomb is refused).
const MAX_ENTRY: u64 = 256 << 20;

impl<'a> Entry<'a> {
    /// The entry's bytes when it is stored (not compressed); `None` for a
    /// compressed one.
    pub fn stored(&self) -> Option<&'a [u8]> {
        (self.method == CompressionMethod::STORE).then_some(self.data)
    }

    /// The entry's bytes, decompressed.
    pub fn bytes(&self) -> Result<Vec<u8>, String> {
        if self.size > MAX_ENTRY {
            return Err(format!(
                "{} bytes uncompressed: larger than the {} this reads",
                self.size, MAX_ENTRY
            ));
        }
        if self.method == CompressionMethod::STORE {
            return Ok(self.data.to_vec());
        }
        if self.method == CompressionMethod::DEFLATE {
            return miniz_oxide::inflate::decompress_to_vec_with_limit(
                self.data,
                MAX_ENTRY as usize,
            )
            .map_err(|e| format!("its deflate data cannot be read ({e:?})"));
        }
        if self.method == CompressionMethod::ZSTD
            || self.method == CompressionMethod::ZSTD_DEPRECATED
        {
            use std::io::Read;
            // The size a header claims is not trusted for the allocation.
            let mut out = Vec::with_capacity(self.size.min(16 << 20) as usize);
            let mut d = ruzstd::decoding::StreamingDecoder::new(self.data)
                .map_err(|e| format!("its zstd data cannot be read ({e})"))?;
            (&mut d)
                .take(MAX_ENTRY + 1)
                .read_to_end(&mut out)
                .map_err(|e| format!("its zstd data cannot be read ({e})"))?;
            if out.len() as u64 > MAX_ENTRY {
                return Err(format!(
                    "it holds more than the {MAX_ENTRY} bytes this reads"
                ));
            }
            return Ok(out);
        }
        Err(format!(
            "compression method {} is not one this reads (stored, deflate, zstd)",
            self.method
        ))
    }

    /// The entry parsed as JSON.
    pub fn json(&self) -> Result<Value, String> {
        let bytes = self.bytes()?;
        serde_json::from_slice(&bytes).map_err(|e| format!("not JSON ({e})"))
    }
}

/// Every entry; on a damaged zip, what went wrong and the entries read
/// before it.
pub fn entries(bytes: &[u8]) -> Result<Vec<Entry<'_>>, (String, Vec<Entry<'_>>)> {
    match by_directory(bytes) {
        Ok(e) => Ok(e),
        Err(e) => {
            let (found, stop) = by_local_headers(bytes);
            Err((format!("{e}; {stop}"), found))
        }
    }
}

/// Whether the zip has an entry of that name (false for a zip that cannot
/// be read).
pub(super) fn has_entry(bytes: &[u8], name: &str) -> bool {
    let found = match entries(bytes) {
        Ok(e) => e,
        Err((_, e)) => e,
    };
    found.iter().any(|e| e.name == name)
}

fn by_directory(bytes: &[u8]) -> Result<Vec<Entry<'_>>, String> {
    let archive = ZipArchive::from_slice(bytes)
        .map_err(|e| format!("its central directory cannot be read ({e})"))?;
    let mut out = Vec::new();
    let mut it = archive.entries();
    loop {
        let rec = match it.next_entry() {
            Ok(Some(r)) => r,
            Ok(None) => break,
            Err(e) => return Err(format!("entry {} cannot be read ({e})", out.len() + 1)),
        };
        if rec.is_dir() {
            continue;
        }
        let name = String::from_utf8_lossy(rec.file_path().as_bytes()).into_owned();
        let method = rec.compression_method();
        let size = rec.uncompressed_size_hint();
        let entry = archive
            .get_entry(rec.wayfinder())
            .map_err(|e| format!("{name}: its data cannot be found ({e})"))?;
        let (start, end) = entry.compressed_data_range();
        let data = usize::try_from(start)
            .ok()
            .zip(usize::try_from(end).ok())
            .and_then(|(a, b)| bytes.get(a..b))
            .ok_or_else(|| format!("{name}: its data lies outside the zip"))?;
        out.push(Entry {
            index: out.len(),
            name,
            method,
            data,
            size,
        });
    }
    Ok(out)
}

/// The entries found by walking local headers from the start, and why the
/// walk stopped.
fn by_local_headers(bytes: &[u8]) -> (Vec<Entry<'_>>, String) {
    const SIZE: usize = 30;
    let le16 = |at: usize| u16::from_le_bytes([bytes[at], bytes[at + 1]]);
    let le32 =
        |at: usize| u32::from_le_bytes([bytes[at], bytes[at + 1], bytes[at + 2], bytes[at + 3]]);
    let mut out = Vec::new();
    let mut at = 0usize;
    loop {
        if at + SIZE > bytes.len() {
            return (
                out,
                format!("the zip ends at byte {} (it is cut off)", bytes.len()),
            );
        }
        if le32(at) != 0x0403_4b50 {
            let why = if le32(at) == 0x0201_4b50 {
                "the central directory starts here but is cut off".to_string()
            } else {
                format!("no entry header at byte {at}")
            };
            return (out, why);
        }
        let flags = le16(at + 6);
        let method = CompressionMethod::from(le16(at + 8));
        let csize = le32(at + 18) as usize;
        let usize_ = u64::from(le32(at + 22));
        let name_len = usize::from(le16(at + 26));
        let extra_len = usize::from(le16(at + 28));
        let start = at + SIZE + name_len + extra_len;
        let number = out.len() + 1;
        if flags & 0x08 != 0 {
            let why = format!("entry {number} at byte {at} gives its size after its data, which a cut-off zip cannot be walked past");
            return (out, why);
        }
        let Some(data) = bytes.get(start..start + csize) else {
            let why = format!("entry {number} is cut off at byte {}", bytes.len());
            return (out, why);
        };
        let name = String::from_utf8_lossy(&bytes[at + SIZE..at + SIZE + name_len]).into_owned();
        if !name.ends_with('/') {
            out.push(Entry {
                index: out.len(),
                name,
                method,
                data,
                size: usize_,
            });
        }
        at = start + csize;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(method: u16, data: &[u8], size: u64) -> Entry<'_> {
        Entry {
            index: 0,
            name: "samples/1_epoch_1.json".into(),
            method: CompressionMethod::from(method),
            data,
            size,
        }
    }

    #[test]
    fn a_hostile_entry_is_refused_not_inflated() {
        // A header claiming 1 TB: refused before anything is allocated.
        let e = entry(93, b"x", 1 << 40).bytes().unwrap_err();
        assert!(e.contains("larger than"), "{e}");
        // A method this does not read.
        let e = entry(14, b"x", 1).bytes().unwrap_err();
        assert!(e.contains("14 (LZMA)"), "{e}");
        // Damaged zstd and deflate data say so.
        assert!(entry(93, b"not zstd", 10)
            .bytes()
            .unwrap_err()
            .contains("zstd"));
        assert!(entry(8, &[0xff; 8], 10)
            .bytes()
            .unwrap_err()
            .contains("deflate"));
        // Stored data is itself.
        assert_eq!(entry(0, b"{}", 2).json().unwrap(), serde_json::json!({}));
        // No zip at all.
        let (found, why) = match entries(b"PK\x03\x04 cut") {
            Ok(_) => panic!("a cut zip reads"),
            Err((why, found)) => (found, why),
        };
        assert!(found.is_empty());
        assert!(why.contains("cut off"), "{why}");
    }
}
