pub mod fields;
pub mod format;
pub mod live;
pub mod markdown;
pub mod stats;
pub mod theme;
pub mod widgets;
