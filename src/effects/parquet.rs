//! A Parquet dataset (Hugging Face's) opened in the task mode: its rows as
//! JSONL, by the core's reader (`evalpage_core::parquet_to_jsonl`), which the
//! task bin fetches only when a Parquet file is opened (its split point
//! `parquet`): the mode's first load does not carry it.

/// What turns a Parquet file into the JSONL of its rows: [`to_jsonl`],
/// reached through the bin's split point.
pub type ParquetRead = fn(&str, &[u8]) -> Result<Vec<u8>, String>;

/// The value of the split point `parquet`.
pub fn to_jsonl(name: &str, bytes: &[u8]) -> Result<Vec<u8>, String> {
    evalpage_core::parquet_to_jsonl(name, bytes)
}

thread_local! {
    static LOADER: crate::split::SplitCode<ParquetRead> = const { crate::split::SplitCode::new() };
}

/// The bin's split point, set once by [`crate::app::start`].
pub(crate) fn set_loader(loader: Option<crate::split::Loader<ParquetRead>>) {
    LOADER.with(|l| l.set_loader(loader));
}

/// The rows of a Parquet file as JSONL, the reader fetched the first time.
pub async fn rows(name: &str, bytes: &[u8]) -> Result<Vec<u8>, String> {
    let read = crate::split::load(&LOADER).await.map_err(|_| {
        format!("{name}: the Parquet reader could not be loaded (is the page offline?); try again")
    })?;
    read(name, bytes)
}
