//! The guide's table of metrics (docs/guide/metrics.md, "Metric types") is the
//! metric registry: one row per metric of every kind, with its description,
//! what it needs and its keys, and no row for a metric that does not exist.

use evalpage_core::REGISTRY;

#[test]
fn the_readme_table_lists_every_registered_metric_type_and_nothing_else() {
    let readme = include_str!("../../../docs/guide/metrics.md");
    let start = readme
        .find("## Metric types")
        .expect("docs/guide/metrics.md has a Metric types section");
    let section = &readme[start..];
    let end = section[3..].find("\n## ").map_or(section.len(), |i| i + 3);
    let rows: Vec<&str> = section[..end]
        .lines()
        .filter(|l| l.starts_with("| `") && l.matches(" | ").count() == 2)
        .collect();
    for t in REGISTRY {
        let row = rows
            .iter()
            .find(|r| r.starts_with(&format!("| `{}` |", t.name)))
            .unwrap_or_else(|| panic!("metrics.md has no row for metric type {}", t.name));
        assert!(
            row.contains(t.description),
            "{}: description differs",
            t.name
        );
        assert!(row.contains(t.needs), "{}: what it needs differs", t.name);
        for k in t.keys {
            assert!(
                row.contains(&format!("`{}`", k.name)),
                "{}: key {} missing",
                t.name,
                k.name
            );
        }
    }
    let listed = rows.iter().filter(|r| {
        let name = r.trim_start_matches("| `").split('`').next().unwrap_or("");
        REGISTRY.iter().all(|t| t.name != name)
    });
    assert_eq!(
        listed.count(),
        0,
        "docs/guide/metrics.md lists a metric type the registry does not have"
    );
}
