//! Time to preview and to import a 10,000-row CSV, and a current Anki package of 10,000 notes
//! with 100,000 reviews written by Anki's own library (the numbers for the README). The
//! preview reads and checks every row (for the package: unpacks it, reads its collection and
//! turns each card's history into a log); the import writes the set in one transaction to a
//! SQLite file (for the package: with every review, each point's schedule replayed).
//! Run with `cargo bench --bench import` (the package is written on first use into
//! `data/anki-packages`, with the `anki` wheel `scripts/test` installs).

// A measuring harness: a failure to set up should stop it loudly, like a test.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::time::Instant;

use warren::store::Store;
use warren::transfer;

const ROWS: usize = 10_000;
const RUNS: usize = 5;

fn main() {
    let runtime = tokio::runtime::Runtime::new().expect("runtime");
    runtime.block_on(run());
}

async fn run() {
    let mut csv = String::from("content,cue\n");
    for i in 0..ROWS {
        csv.push_str(&format!(
            "Fact number {i} says that item {i} belongs to group {},\"Which group, {i}?\"\n",
            i % 97
        ));
    }
    let dir = tempfile::tempdir().expect("temp dir");
    let store = Store::open(&format!("sqlite://{}/bench.db", dir.path().display())).await.expect("db");
    store.migrate().await.expect("migrate");
    let owner = store.create_account("bench", "not-a-real-hash").await.expect("account").expect("new");
    let (mut previews, mut imports) = (Vec::new(), Vec::new());
    for run in 0..RUNS {
        let start = Instant::now();
        let (_, mut read) = transfer::read("facts.csv", csv.as_bytes()).await.expect("a preview");
        previews.push(start.elapsed());
        let mut preview = read.remove(0);
        assert_eq!(preview.set.points.len(), ROWS);
        preview.set.name = format!("Facts {run}");
        let start = Instant::now();
        store.create_set(&owner, &preview.set).await.expect("import");
        imports.push(start.elapsed());
    }
    previews.sort();
    imports.sort();
    let ms = |d: std::time::Duration| d.as_secs_f64() * 1000.0;
    println!("a {ROWS}-row CSV ({} KiB), median of {RUNS} runs:", csv.len() / 1024);
    println!("  preview (read and check every row): {:.0} ms", ms(previews[RUNS / 2]));
    println!("  import (one transaction, SQLite):   {:.0} ms", ms(imports[RUNS / 2]));

    let package = large_package();
    let (mut previews, mut imports) = (Vec::new(), Vec::new());
    for run in 0..RUNS {
        let start = Instant::now();
        let (_, mut read) = transfer::read("large.apkg", &package).await.expect("a preview");
        previews.push(start.elapsed());
        let mut preview = read.remove(0);
        assert_eq!((preview.set.points.len(), preview.reviews()), (10_000, 100_000));
        preview.set.name = format!("Large deck {run}");
        let start = Instant::now();
        store.create_set(&owner, &preview.set).await.expect("import");
        imports.push(start.elapsed());
    }
    previews.sort();
    imports.sort();
    println!(
        "a current Anki package of 10,000 notes and 100,000 reviews ({} KiB), median of {RUNS} runs:",
        package.len() / 1024
    );
    println!("  preview (unpack, read the collection and every history): {:.0} ms", ms(previews[RUNS / 2]));
    println!("  import (one transaction with every review, SQLite):     {:.0} ms", ms(imports[RUNS / 2]));
}

/// `data/anki-packages/large.apkg`, written by Anki's library if it is not there yet.
fn large_package() -> Vec<u8> {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let dir = root.join("data/anki-packages");
    let file = dir.join("large.apkg");
    if !file.exists() {
        let python = root.join("data/anki-venv/bin/python");
        assert!(
            python.exists(),
            "Anki's library is not installed: run `source scripts/lib.sh; ensure_anki_packages`"
        );
        let status = std::process::Command::new(python)
            .arg(root.join("scripts/anki-packages.py"))
            .arg("--large")
            .arg(&dir)
            .status()
            .expect("run Anki");
        assert!(status.success(), "Anki could not write the package");
    }
    std::fs::read(file).expect("the package")
}
