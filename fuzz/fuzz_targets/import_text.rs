//! CSV, Warren JSON and Markdown imports: any bytes under any of their names give a preview
//! or a reason, never a panic. The first byte picks the file name.
#![no_main]

use libfuzzer_sys::fuzz_target;

const NAMES: [&str; 5] = ["cells.csv", "cells.tsv", "cells.json", "cells.md", "cells.txt"];

fuzz_target!(|data: &[u8]| {
    let Some((pick, bytes)) = data.split_first() else { return };
    let name = NAMES[usize::from(*pick) % NAMES.len()];
    let Ok(runtime) = tokio::runtime::Builder::new_current_thread().build() else { return };
    if let Ok((_, previews)) = runtime.block_on(warren::transfer::read(name, bytes)) {
        assert_eq!(previews.len(), 1, "one set from a text file");
        assert!(!previews[0].set.points.is_empty(), "an accepted file has points");
    }
});
