//! A soft two-note chime, synthesised with Web Audio (no file to fetch).

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
