//! The learner's clock. Pages are rendered on the server, which cannot know the learner's time
//! zone, so every page sets a cookie with it (a line of script in `<head>`); statistics and
//! date filters count days from the learner's midnight, not the server's.

/// The cookie holding the learner's offset from UTC, in minutes (east positive).
pub const TZ_COOKIE: &str = "tz";

/// Runs in `<head>`: keeps the `tz` cookie up to date (a year; the learner's clock, no more).
pub const CLOCK_BOOT_SCRIPT: &str = "try{document.cookie='tz='+(-new Date().getTimezoneOffset())\
+';path=/;max-age=31536000;samesite=lax';}catch(e){}";

pub const DAY_MS: i64 = 86_400_000;

/// The learner's day number (days since 1970-01-01 in their time zone) of a moment.
pub fn day_of(at_ms: i64, utc_offset_min: i32) -> i64 {
    (at_ms + i64::from(utc_offset_min) * 60_000).div_euclid(DAY_MS)
}

/// The moment (UTC milliseconds) the learner's day `day` begins.
pub fn start_of_day(day: i64, utc_offset_min: i32) -> i64 {
    day * DAY_MS - i64::from(utc_offset_min) * 60_000
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn days_begin_at_the_learners_midnight() {
        // 2026-11-22 23:30 UTC is already the 23rd an hour east, still the 22nd five hours west.
        let at = 1_795_390_200_000;
        let utc = day_of(at, 0);
        assert_eq!(day_of(at, 60), utc + 1);
        assert_eq!(day_of(at, -300), utc);
        assert_eq!(day_of(start_of_day(utc, -300), -300), utc);
        assert_eq!(day_of(start_of_day(utc, -300) - 1, -300), utc - 1);
        assert_eq!(day_of(-1, 0), -1, "before 1970 rounds down");
    }
}
