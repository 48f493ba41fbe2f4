//! UTC date formats for timestamps that are passed in (the core reads no clock):
//! RFC 3339 with milliseconds for reports, and the compact `YYYYMMDDTHHMMSSZ` used
//! in run ids.

/// `YYYY-MM-DDTHH:MM:SS.mmmZ` for ms since the Unix epoch (UTC).
pub fn rfc3339_ms(ms: u64) -> String {
    let (secs, milli) = (ms / 1000, ms % 1000);
    let (y, m, d, hh, mm, ss) = civil(secs);
    format!("{y:04}-{m:02}-{d:02}T{hh:02}:{mm:02}:{ss:02}.{milli:03}Z")
}

/// `YYYYMMDDTHHMMSSZ` for seconds since the Unix epoch (UTC).
pub fn utc_stamp(epoch_s: u64) -> String {
    let (y, m, d, hh, mm, ss) = civil(epoch_s);
    format!("{y:04}{m:02}{d:02}T{hh:02}{mm:02}{ss:02}Z")
}

/// Date and time of day for seconds since the epoch.
fn civil(epoch_s: u64) -> (u64, u64, u64, u64, u64, u64) {
    let (days, s) = (epoch_s / 86_400, epoch_s % 86_400);
    let (y, m, d) = civil_from_days(days);
    (y, m, d, s / 3600, s % 3600 / 60, s % 60)
}

/// Year, month, day of a day count since 1970-01-01 (Howard Hinnant's algorithm).
fn civil_from_days(days: u64) -> (u64, u64, u64) {
    let z = days + 719_468;
    let era = z / 146_097;
    let doe = z % 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    (yoe + era * 400 + u64::from(m <= 2), m, d)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats_known_instants() {
        assert_eq!(utc_stamp(0), "19700101T000000Z");
        assert_eq!(utc_stamp(951_782_400), "20000229T000000Z");
        assert_eq!(utc_stamp(1_795_644_900), "20261125T221500Z");
        assert_eq!(rfc3339_ms(1_795_644_900_123), "2026-11-25T22:15:00.123Z");
    }
}
