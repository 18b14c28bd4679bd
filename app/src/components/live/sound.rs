//! The recall chime and whether it is muted (kept in `localStorage` across visits). A soft
//! two-note chime, synthesised with Web Audio: no file to fetch. Only the browser makes sound;
//! on the server these do nothing.

const MUTE_KEY: &str = "warren.muted";

/// Whether the learner muted the chime on an earlier visit.
pub fn stored_mute() -> bool {
    #[cfg(feature = "hydrate")]
    {
        storage().and_then(|s| s.get_item(MUTE_KEY).ok().flatten()).is_some_and(|v| v == "1")
    }
    #[cfg(not(feature = "hydrate"))]
    false
}

/// Remembers the choice; storage can be unavailable (private mode), which only forgets it.
pub fn store_mute(muted: bool) {
    #[cfg(feature = "hydrate")]
    if let Some(storage) = storage() {
        let _ = if muted { storage.set_item(MUTE_KEY, "1") } else { storage.remove_item(MUTE_KEY) };
    }
    #[cfg(not(feature = "hydrate"))]
    let _ = (muted, MUTE_KEY);
}

#[cfg(feature = "hydrate")]
fn storage() -> Option<web_sys::Storage> {
    web_sys::window()?.local_storage().ok().flatten()
}

pub fn chime() {
    #[cfg(feature = "hydrate")]
    synth::play();
}

#[cfg(feature = "hydrate")]
mod synth {
    use web_sys::{AudioContext, OscillatorType};

    thread_local! {
        static CONTEXT: std::cell::RefCell<Option<AudioContext>> = const { std::cell::RefCell::new(None) };
    }

    pub fn play() {
        CONTEXT.with(|cell| {
            let mut cell = cell.borrow_mut();
            if cell.is_none() {
                *cell = AudioContext::new().ok();
            }
            let Some(context) = cell.as_ref() else { return };
            let now = context.current_time();
            for (i, frequency) in [659.25f32, 987.77].into_iter().enumerate() {
                let start = now + 0.09 * i as f64;
                let (Ok(oscillator), Ok(gain)) = (context.create_oscillator(), context.create_gain()) else {
                    return;
                };
                oscillator.set_type(OscillatorType::Sine);
                oscillator.frequency().set_value(frequency);
                let level = gain.gain();
                let _ = level.set_value_at_time(0.0001, start);
                let _ = level.exponential_ramp_to_value_at_time(0.12, start + 0.02);
                let _ = level.exponential_ramp_to_value_at_time(0.0001, start + 0.6);
                if oscillator.connect_with_audio_node(&gain).is_err()
                    || gain.connect_with_audio_node(&context.destination()).is_err()
                {
                    return;
                }
                let _ = oscillator.start_with_when(start);
                let _ = oscillator.stop_with_when(start + 0.65);
            }
        });
    }
}
