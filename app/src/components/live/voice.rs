//! Answering by voice: a microphone button beside Send. Tap to record (a level meter and a
//! timer show it is listening; two minutes at most; Escape cancels), tap again to stop: the
//! recording goes to the server to be transcribed and the words come into the box, added to
//! what is there, for the learner to read, edit and send. Nothing is sent by itself. Shown
//! only when the server transcribes and the browser can record; a refused microphone is one
//! sentence. A recording the transcription service failed on is kept for one retry.
//!
//! The browser's recorder is `MediaRecorder` over `getUserMedia`, through web-sys: gloo has
//! neither. Written for a small client: the server renders the button and the status line
//! hidden and static; in the browser they are driven directly (the recorder's state is the
//! browser's objects, kept in a thread-local: a page has one recorder), so the recorder adds
//! no reactive views of its own to the bundle. Untrusted text (a transcript's terms, a
//! server's message) only ever becomes text nodes.
//!
//! Long by design: the recorder, its two elements and the upload are one piece of browser
//! state, driven directly rather than through reactive views (see above).

use leptos::prelude::*;

/// The button's and the status line's ids (one recorder a page).
const BUTTON: &str = "mic";
const STATUS: &str = "voice-status";

/// The recorder's markup, hidden until the browser says it can record (see [`attach`]).
pub fn markup() -> impl IntoView {
    view! {
        <button
            type="button"
            id=BUTTON
            class="button mic"
            data-testid="mic"
            aria-label="Answer by voice"
            title="Answer by voice"
            aria-pressed="false"
            hidden
        >
            <svg viewBox="0 0 24 24" width="20" height="20" aria-hidden="true">
                <path d="M12 14a3 3 0 0 0 3-3V5a3 3 0 0 0-6 0v6a3 3 0 0 0 3 3zm5-3a5 5 0 0 1-10 0H5a7 7 0 0 0 6 6.9V21h2v-3.1A7 7 0 0 0 19 11h-2z" fill="currentColor"/>
            </svg>
        </button>
        <div id=STATUS class="voice-status" role="status" hidden></div>
    }
}

#[cfg(feature = "hydrate")]
pub use browser::attach;

#[cfg(feature = "hydrate")]
mod browser {
    //! The browser's side: the microphone, the recorder, the level meter, the upload, and the
    //! button and status line they drive.
    use std::cell::RefCell;

    use leptos::prelude::*;
    use wasm_bindgen::JsCast;
    use wasm_bindgen::prelude::*;
    use wasm_bindgen_futures::JsFuture;
    use web_sys::{
        AnalyserNode, AudioContext, Blob, BlobEvent, BlobPropertyBag, DomException, Element, FormData,
        HtmlElement, KeyboardEvent, MediaRecorder, MediaRecorderOptions, MediaStream, MediaStreamConstraints,
        MediaStreamTrack, RequestInit,
    };

    use super::{BUTTON, STATUS};
    use crate::voice::{MAX_BYTES, MAX_SECONDS, TRANSCRIBE_PATH, TranscribeError};

    /// Types the recorder tries, best first: Opus in WebM is what transcription services take
    /// most widely.
    const TYPES: [&str; 4] = ["audio/webm;codecs=opus", "audio/webm", "audio/ogg;codecs=opus", "audio/mp4"];

    /// Where the recorder stands.
    #[derive(Clone, Copy, PartialEq, Eq)]
    enum Phase {
        Idle,
        /// Waiting for the browser's permission.
        Asking,
        Recording,
        /// The recording is being transcribed.
        Sending,
    }

    /// The browser's objects of a recording under way, and what it has recorded so far.
    struct Recording {
        recorder: MediaRecorder,
        stream: MediaStream,
        audio: Option<AudioContext>,
        meter: Option<gloo_timers::callback::Interval>,
        chunks: Vec<Blob>,
        /// Thrown away when it stops (Escape).
        cancelled: bool,
        _on_data: Closure<dyn FnMut(BlobEvent)>,
        _on_stop: Closure<dyn FnMut()>,
        _on_key: Closure<dyn FnMut(KeyboardEvent)>,
    }

    /// The page's recorder.
    struct Recorder {
        session: String,
        draft: RwSignal<String>,
        voiced: RwSignal<bool>,
        phase: Phase,
        recording: Option<Recording>,
        /// The last recording the service failed on, kept for one more try.
        kept: Option<Blob>,
    }

    thread_local! {
        static RECORDER: RefCell<Option<Recorder>> = const { RefCell::new(None) };
    }

    fn with<T>(f: impl FnOnce(&mut Recorder) -> T) -> Option<T> {
        RECORDER.with(|r| r.borrow_mut().as_mut().map(f))
    }

    fn element(id: &str) -> Option<HtmlElement> {
        document().get_element_by_id(id)?.dyn_into::<HtmlElement>().ok()
    }

    /// Shows the recorder's button if this browser can record, and listens to it.
    pub fn attach(session: String, draft: RwSignal<String>, voiced: RwSignal<bool>) {
        let window = window();
        let has = |object: &JsValue, name: &str| {
            js_sys::Reflect::has(object, &JsValue::from_str(name)).unwrap_or(false)
        };
        let Some(button) = element(BUTTON) else { return };
        if !has(&window, "MediaRecorder") || !has(&window.navigator(), "mediaDevices") {
            return;
        }
        RECORDER.with(|r| {
            *r.borrow_mut() =
                Some(Recorder { session, draft, voiced, phase: Phase::Idle, recording: None, kept: None })
        });
        let click = Closure::<dyn FnMut()>::new(toggle);
        button.set_onclick(Some(click.as_ref().unchecked_ref()));
        // The page's button for the page's lifetime.
        click.forget();
        button.set_hidden(false);
    }

    /// The button as the recorder stands: pressed while recording, off while busy (and, by
    /// the stylesheet, while the answer box is: the session has ended).
    fn paint_button() {
        let Some(phase) = with(|r| r.phase) else { return };
        let Some(button) = element(BUTTON) else { return };
        let label = match phase {
            Phase::Idle | Phase::Asking => "Answer by voice",
            Phase::Recording => "Stop recording",
            Phase::Sending => "Transcribing…",
        };
        let _ = button.set_attribute("aria-label", label);
        button.set_title(label);
        let recording = phase == Phase::Recording;
        let _ = button.set_attribute("aria-pressed", if recording { "true" } else { "false" });
        let _ = button.class_list().toggle_with_force("recording", recording);
        let busy = matches!(phase, Phase::Asking | Phase::Sending);
        let _ = if busy { button.set_attribute("disabled", "") } else { button.remove_attribute("disabled") };
    }

    fn set_phase(phase: Phase) {
        with(|r| r.phase = phase);
        paint_button();
    }

    /// A child element with a class and a test id.
    fn child(parent: &Element, tag: &str, class: &str, test_id: &str) -> Option<Element> {
        let node = document().create_element(tag).ok()?;
        if !class.is_empty() {
            node.set_class_name(class);
        }
        if !test_id.is_empty() {
            let _ = node.set_attribute("data-testid", test_id);
        }
        parent.append_child(&node).ok()?;
        Some(node)
    }

    /// What the status line says: its test id, its class, and its text (none: hidden).
    fn status(test_id: &str, class: &str, text: Option<&str>) -> Option<HtmlElement> {
        let line = element(STATUS)?;
        line.set_text_content(None);
        line.set_class_name(&format!("voice-status {class}"));
        let _ = line.set_attribute("data-testid", test_id);
        let _ = line.set_attribute("role", if class.contains("form-error") { "alert" } else { "status" });
        line.set_hidden(text.is_none());
        if let Some(text) = text {
            let words = document().create_text_node(text);
            line.append_child(&words).ok()?;
        }
        Some(line)
    }

    /// While recording: the meter, the clock and how to stop.
    fn show_recording() {
        let Some(line) = status("recording", "recording", Some("")) else { return };
        if let Some(meter) = child(&line, "meter", "", "level") {
            for (name, value) in [("min", "0"), ("max", "1"), ("value", "0"), ("aria-label", "Loudness")] {
                let _ = meter.set_attribute(name, value);
            }
        }
        if let Some(clock) = child(&line, "span", "timer", "recording-time") {
            clock.set_text_content(Some(&clock_text(0)));
        }
        if let Some(hint) = child(&line, "span", "hint", "") {
            hint.set_text_content(Some("Tap the microphone to stop; Escape cancels."));
        }
    }

    fn clock_text(seconds: u32) -> String {
        format!("{}:{:02} / {}:{:02}", seconds / 60, seconds % 60, MAX_SECONDS / 60, MAX_SECONDS % 60)
    }

    /// A problem, with "Try again" when a recording is kept for it.
    fn show_problem(problem: &str, retry: bool) {
        let Some(line) = status("voice-problem", "form-error", Some(problem)) else { return };
        if retry && let Some(button) = child(&line, "button", "link-button", "voice-retry") {
            let _ = button.set_attribute("type", "button");
            button.set_text_content(Some("Try again"));
            let again = Closure::<dyn FnMut()>::new(send_kept);
            if let Ok(button) = button.dyn_into::<HtmlElement>() {
                button.set_onclick(Some(again.as_ref().unchecked_ref()));
            }
            // Gone with the button, which the next status replaces.
            again.forget();
            let _ = line.insert_before(&document().create_text_node(" "), line.last_child().as_ref());
        }
    }

    /// Starts recording, or stops and sends what was recorded; nothing once the session has
    /// ended (the answer box is off then).
    fn toggle() {
        let ended = document()
            .get_element_by_id("answer")
            .and_then(|a| a.dyn_into::<web_sys::HtmlTextAreaElement>().ok())
            .is_some_and(|a| a.disabled());
        if ended {
            return;
        }
        match with(|r| r.phase) {
            Some(Phase::Idle) => {
                set_phase(Phase::Asking);
                status("", "", None);
                leptos::task::spawn_local(start());
            }
            Some(Phase::Recording) => stop(false),
            Some(Phase::Asking | Phase::Sending) | None => {}
        }
    }

    fn fail(problem: &str) {
        set_phase(Phase::Idle);
        show_problem(problem, false);
    }

    async fn start() {
        let stream = match microphone().await {
            Ok(stream) => stream,
            Err(why) => return fail(why),
        };
        let options = MediaRecorderOptions::new();
        if let Some(kind) = TYPES.iter().find(|t| MediaRecorder::is_type_supported(t)) {
            options.set_mime_type(kind);
        }
        let Ok(recorder) = MediaRecorder::new_with_media_stream_and_media_recorder_options(&stream, &options)
        else {
            stop_tracks(&stream);
            return fail("This browser cannot record here; type your answer instead.");
        };
        let on_data = Closure::<dyn FnMut(BlobEvent)>::new(|event: BlobEvent| {
            if let Some(data) = event.data().filter(|d| d.size() > 0.0) {
                with(|r| r.recording.as_mut().map(|r| r.chunks.push(data)));
            }
        });
        let on_stop = Closure::<dyn FnMut()>::new(stopped);
        let on_key = Closure::<dyn FnMut(KeyboardEvent)>::new(|event: KeyboardEvent| {
            if event.key() == "Escape" {
                stop(true);
            }
        });
        recorder.set_ondataavailable(Some(on_data.as_ref().unchecked_ref()));
        recorder.set_onstop(Some(on_stop.as_ref().unchecked_ref()));
        let _ = window().add_event_listener_with_callback("keydown", on_key.as_ref().unchecked_ref());
        if recorder.start_with_time_slice(250).is_err() {
            stop_tracks(&stream);
            return fail("The recording could not start; try again.");
        }
        let audio = level_meter(&stream);
        let meter = audio.as_ref().map(|(_, analyser)| {
            let (analyser, started) = (analyser.clone(), js_sys::Date::now());
            gloo_timers::callback::Interval::new(100, move || tick(&analyser, started))
        });
        with(|r| {
            r.recording = Some(Recording {
                recorder,
                stream,
                audio: audio.map(|(audio, _)| audio),
                meter,
                chunks: Vec::new(),
                cancelled: false,
                _on_data: on_data,
                _on_stop: on_stop,
                _on_key: on_key,
            })
        });
        set_phase(Phase::Recording);
        show_recording();
    }

    /// The meter and the clock, ten times a second; the recording stops at the limit.
    fn tick(analyser: &AnalyserNode, started: f64) {
        let mut samples = [0_u8; 256];
        analyser.get_byte_time_domain_data(&mut samples);
        #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)] // seconds
        let seconds = ((js_sys::Date::now() - started) / 1000.0) as u32;
        let find = |selector: &str| document().query_selector(selector).ok().flatten();
        if let Some(meter) = find("#voice-status meter") {
            let _ = meter.set_attribute("value", &format!("{:.3}", loudness(&samples)));
        }
        if let Some(clock) = find("#voice-status .timer") {
            clock.set_text_content(Some(&clock_text(seconds)));
        }
        if seconds >= MAX_SECONDS {
            stop(false);
        }
    }

    /// Ends the recording: its `stop` event then sends it, unless `cancel`.
    fn stop(cancel: bool) {
        with(|r| {
            let Some(recording) = r.recording.as_mut() else { return };
            recording.cancelled = cancel;
            recording.meter.take();
            let _ = window()
                .remove_event_listener_with_callback("keydown", recording._on_key.as_ref().unchecked_ref());
            let _ = recording.recorder.stop();
            stop_tracks(&recording.stream);
            if let Some(audio) = recording.audio.take() {
                let _ = audio.close();
            }
        });
        status("", "", None);
        if cancel {
            set_phase(Phase::Idle);
        }
    }

    /// The recorder's last event: its pieces become one recording, sent unless cancelled.
    fn stopped() {
        let Some(Some(recording)) = with(|r| r.recording.take()) else { return };
        let parts = js_sys::Array::new();
        for chunk in &recording.chunks {
            parts.push(chunk);
        }
        let kind = recording.recorder.mime_type();
        let cancelled = recording.cancelled;
        // Let go of it after this event: its closures are running it.
        set_timeout(move || drop(recording), std::time::Duration::ZERO);
        if cancelled {
            return;
        }
        let bag = BlobPropertyBag::new();
        bag.set_type(&kind);
        match Blob::new_with_blob_sequence_and_options(&parts, &bag) {
            Ok(blob) if blob.size() > 0.0 => leptos::task::spawn_local(send(blob, true)),
            Ok(_) | Err(_) => fail("Nothing was recorded; try again."),
        }
    }

    /// Sends the kept recording once more.
    fn send_kept() {
        if let Some(Some(blob)) = with(|r| r.kept.take()) {
            leptos::task::spawn_local(send(blob, false));
        }
    }

    /// Sends a recording; its transcript joins the box. `keep`: on a failure worth retrying,
    /// keep it for one more try.
    async fn send(blob: Blob, keep: bool) {
        set_phase(Phase::Sending);
        status("transcribing", "", Some("Turning your words into text…"));
        let Some((session, draft, voiced)) = with(|r| (r.session.clone(), r.draft, r.voiced)) else { return };
        let outcome = transcribe(&session, &blob).await;
        set_phase(Phase::Idle);
        match outcome {
            Ok((text, fixes)) => {
                draft.update(|draft| {
                    let before = draft.trim_end();
                    *draft = if before.is_empty() { text } else { format!("{before} {text}") };
                });
                voiced.set(true);
                let heard = (!fixes.is_empty()).then(|| format!("Heard as your set's terms: {fixes}."));
                status("corrections", "meta", heard.as_deref());
                if let Some(answer) = element("answer") {
                    let _ = answer.focus();
                }
            }
            Err((code, message)) => {
                let again = keep && code.is_some_and(TranscribeError::worth_retrying);
                if again {
                    with(|r| r.kept = Some(blob));
                }
                show_problem(&message, again);
            }
        }
    }

    /// The microphone's stream, or the sentence that says why not.
    async fn microphone() -> Result<MediaStream, &'static str> {
        let devices = window()
            .navigator()
            .media_devices()
            .map_err(|_| "This browser gives no access to a microphone here; type your answer instead.")?;
        let constraints = MediaStreamConstraints::new();
        constraints.set_audio(&JsValue::TRUE);
        let asked = devices
            .get_user_media_with_constraints(&constraints)
            .map_err(|_| "The microphone could not be asked for; type your answer instead.")?;
        match JsFuture::from(asked).await {
            Ok(stream) => stream.dyn_into::<MediaStream>().map_err(|_| "The microphone gave no sound."),
            Err(error) => {
                let name = error.dyn_into::<DomException>().map(|e| e.name()).unwrap_or_default();
                Err(match name.as_str() {
                    "NotAllowedError" | "SecurityError" => {
                        "Warren may not use your microphone: allow it for this site in your browser's settings, or type your answer."
                    }
                    "NotFoundError" | "OverconstrainedError" => {
                        "No microphone was found; connect one, or type your answer."
                    }
                    "NotReadableError" | "AbortError" => {
                        "The microphone is busy in another program; close it there, or type your answer."
                    }
                    _ => "The microphone could not be started; type your answer instead.",
                })
            }
        }
    }

    fn stop_tracks(stream: &MediaStream) {
        for track in stream.get_tracks().iter() {
            if let Ok(track) = track.dyn_into::<MediaStreamTrack>() {
                track.stop();
            }
        }
    }

    /// An analyser on the stream, for the level meter (none if the browser will not make one:
    /// the recording goes on without a meter).
    fn level_meter(stream: &MediaStream) -> Option<(AudioContext, AnalyserNode)> {
        let audio = AudioContext::new().ok()?;
        let source = audio.create_media_stream_source(stream).ok()?;
        let analyser = audio.create_analyser().ok()?;
        analyser.set_fft_size(256);
        source.connect_with_audio_node(&analyser).ok()?;
        Some((audio, analyser))
    }

    /// How loud a frame of samples is, 0 to 1 (their spread around silence, 128).
    fn loudness(samples: &[u8]) -> f64 {
        let sum: f64 = samples.iter().map(|&s| (f64::from(s) - 128.0).powi(2)).sum();
        #[allow(clippy::cast_precision_loss)] // 256 samples
        let rms = (sum / samples.len().max(1) as f64).sqrt() / 128.0;
        (rms * 4.0).min(1.0)
    }

    /// A string field of a JSON object the browser parsed.
    fn field(object: &JsValue, name: &str) -> String {
        js_sys::Reflect::get(object, &JsValue::from_str(name))
            .ok()
            .and_then(|v| v.as_string())
            .unwrap_or_default()
    }

    /// Posts a recording: the transcript and its corrections written out ("“a” → “b”"), or
    /// the refusal's code (if it gave one) and sentence.
    async fn transcribe(
        session: &str,
        blob: &Blob,
    ) -> Result<(String, String), (Option<TranscribeError>, String)> {
        let refused = |code: TranscribeError| (Some(code), code.message().to_string());
        #[allow(clippy::cast_precision_loss)] // 10 MB
        if blob.size() > MAX_BYTES as f64 {
            return Err(refused(TranscribeError::TooLarge));
        }
        let unreachable = || {
            (
                Some(TranscribeError::Unavailable),
                "Warren could not be reached to transcribe; check the connection and try again.".to_string(),
            )
        };
        let form = FormData::new().map_err(|_| unreachable())?;
        let kind = blob.type_();
        let extension = if kind.contains("ogg") {
            "ogg"
        } else if kind.contains("mp4") {
            "m4a"
        } else {
            "webm"
        };
        form.append_with_str("session", session).map_err(|_| unreachable())?;
        form.append_with_blob_and_filename("audio", blob, &format!("answer.{extension}"))
            .map_err(|_| unreachable())?;
        let init = RequestInit::new();
        init.set_method("POST");
        init.set_body(&form);
        let response = JsFuture::from(window().fetch_with_str_and_init(TRANSCRIBE_PATH, &init))
            .await
            .map_err(|_| unreachable())?
            .dyn_into::<web_sys::Response>()
            .map_err(|_| unreachable())?;
        let ok = response.ok();
        let json = match response.json() {
            Ok(promise) => JsFuture::from(promise).await.map_err(|_| unreachable())?,
            Err(_) => return Err(unreachable()),
        };
        if !ok {
            let code = field(&json, "code").parse::<TranscribeError>().ok();
            let message = field(&json, "message");
            return Err(match (code, message.is_empty()) {
                (Some(code), true) => refused(code),
                (code, false) => (code, message),
                (None, true) => unreachable(),
            });
        }
        let fixes = js_sys::Reflect::get(&json, &JsValue::from_str("corrections"))
            .ok()
            .map(|list| js_sys::Array::from(&list))
            .map(|list| {
                list.iter()
                    .map(|c| format!("“{}” → “{}”", field(&c, "heard"), field(&c, "meant")))
                    .collect::<Vec<_>>()
                    .join(", ")
            })
            .unwrap_or_default();
        Ok((field(&json, "text"), fixes))
    }
}
