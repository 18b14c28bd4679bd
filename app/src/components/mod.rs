pub mod fields;
pub mod format;
pub mod live;
pub mod markdown;
pub mod stats;
pub mod summary;
pub mod theme;
pub mod widgets;
