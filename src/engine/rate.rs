//! A token bucket: `burst` actions at once, then one per `interval`.

use std::time::{Duration, Instant};

pub struct TokenBucket {
    capacity: f64,
    tokens: f64,
    per_second: f64,
    last: Instant,
}

impl TokenBucket {
    pub fn new(burst: u32, interval: Duration) -> Self {
        let capacity = f64::from(burst.max(1));
        Self {
            capacity,
            tokens: capacity,
            per_second: 1.0 / interval.as_secs_f64().max(1e-3),
            last: Instant::now(),
        }
    }

    pub fn try_take(&mut self) -> bool {
        let now = Instant::now();
        self.tokens =
            (self.tokens + now.duration_since(self.last).as_secs_f64() * self.per_second).min(self.capacity);
        self.last = now;
        if self.tokens >= 1.0 {
            self.tokens -= 1.0;
            true
        } else {
            false
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn allows_a_burst_then_refuses() {
        let mut bucket = TokenBucket::new(3, Duration::from_secs(3600));
        assert!(bucket.try_take() && bucket.try_take() && bucket.try_take());
        assert!(!bucket.try_take());
    }

    #[test]
    fn refills_over_time() {
        let mut bucket = TokenBucket::new(1, Duration::from_millis(1));
        assert!(bucket.try_take());
        std::thread::sleep(Duration::from_millis(5));
        assert!(bucket.try_take());
    }
}
