//! Answering by voice: a microphone button beside Send. Tap to record (a level meter and a
//! timer show it is listening; two minutes at most; Escape cancels), tap again to stop: the
//! recording goes to the server to be transcribed and the words come into the box, added to
//! what is there, for the learner to read, edit and send. Nothing is sent by itself. Shown
//! only when the server transcribes and the browser can record; a refused microphone is one
//! sentence. A recording the transcription service failed on is kept for one retry.
//!
//! The browser's recorder is `MediaRecorder` over `getUserMedia`, through web-sys: gloo has
//! neither.

use leptos::prelude::*;

use crate::voice::{Correction, MAX_SECONDS};

/// Where the recorder stands (only the browser's recorder moves it on).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(not(feature = "hydrate"), allow(dead_code))]
enum Phase {
    Idle,
    /// Waiting for the browser's permission.
    Asking,
    Recording,
    /// The recording is being transcribed.
    Sending,
}

#[component]
pub fn Recorder(
    session_id: String,
    /// The input box's text: a transcript is added to it.
    draft: RwSignal<String>,
    /// Whether the box holds spoken words (the message then says it came by voice).
    voiced: RwSignal<bool>,
    /// Nothing more can be sent.
    #[prop(into)]
    closed: Signal<bool>,
) -> impl IntoView {
    let phase = RwSignal::new(Phase::Idle);
    let level = RwSignal::new(0.0_f64);
    let seconds = RwSignal::new(0_u32);
    let problem = RwSignal::new(None::<String>);
    let retry = RwSignal::new(false);
    let fixes = RwSignal::new(Vec::<Correction>::new());
    // Known only in the browser: the button appears once it is known the browser can record.
    let can_record = RwSignal::new(false);
    let controls =
        browser::Controls::new(session_id, draft, voiced, phase, level, seconds, problem, retry, fixes);
    Effect::new(move |_| can_record.set(browser::can_record()));
    let label = move || match phase.get() {
        Phase::Idle | Phase::Asking => "Answer by voice",
        Phase::Recording => "Stop recording",
        Phase::Sending => "Transcribing…",
    };
    view! {
        <Show when=move || can_record.get()>
            <button
                type="button"
                class="button mic"
                class:recording=move || phase.get() == Phase::Recording
                data-testid="mic"
                aria-label=label
                title=label
                aria-pressed=move || (phase.get() == Phase::Recording).to_string()
                disabled=move || closed.get() || matches!(phase.get(), Phase::Asking | Phase::Sending)
                on:click=move |_| controls.toggle()
            >
                <svg viewBox="0 0 24 24" width="20" height="20" aria-hidden="true">
                    <path d="M12 14a3 3 0 0 0 3-3V5a3 3 0 0 0-6 0v6a3 3 0 0 0 3 3zm5-3a5 5 0 0 1-10 0H5a7 7 0 0 0 6 6.9V21h2v-3.1A7 7 0 0 0 19 11h-2z" fill="currentColor"/>
                </svg>
            </button>
        </Show>
        <Show when=move || phase.get() == Phase::Recording>
            <div class="voice-status recording" role="status" data-testid="recording">
                <meter min="0" max="1" value=move || level.get().to_string() aria-label="Loudness" data-testid="level"></meter>
                <span class="timer" data-testid="recording-time">
                    {move || { let s = seconds.get(); format!("{}:{:02} / {}:{:02}", s / 60, s % 60, MAX_SECONDS / 60, MAX_SECONDS % 60) }}
                </span>
                <span class="hint">"Tap the microphone to stop; Escape cancels."</span>
            </div>
        </Show>
        <Show when=move || phase.get() == Phase::Sending>
            <p class="voice-status" role="status" data-testid="transcribing">"Turning your words into text…"</p>
        </Show>
        {move || problem.get().map(|p| view! {
            <p class="voice-status form-error" role="alert" data-testid="voice-problem">
                {p}
                {retry.get().then(|| view! {
                    " "
                    <button type="button" class="link-button" data-testid="voice-retry" on:click=move |_| controls.retry()>
                        "Try again"
                    </button>
                })}
            </p>
        })}
        {move || {
            let list = fixes.get();
            (!list.is_empty()).then(|| view! {
                <p class="voice-status meta" data-testid="corrections">
                    "Heard as your set's terms: "
                    {list.into_iter().map(|c| format!("“{}” → “{}”", c.heard, c.meant)).collect::<Vec<_>>().join(", ")}
                    "."
                </p>
            })
        }}
    }
}

#[cfg(not(feature = "hydrate"))]
mod browser {
    //! On the server the recorder is never shown: nothing to control.
    use super::*;

    #[derive(Clone, Copy)]
    pub struct Controls;

    impl Controls {
        #[allow(clippy::too_many_arguments)] // the same signature as the browser's
        pub fn new(
            _session: String,
            _draft: RwSignal<String>,
            _voiced: RwSignal<bool>,
            _phase: RwSignal<Phase>,
            _level: RwSignal<f64>,
            _seconds: RwSignal<u32>,
            _problem: RwSignal<Option<String>>,
            _retry: RwSignal<bool>,
            _fixes: RwSignal<Vec<Correction>>,
        ) -> Self {
            Controls
        }

        pub fn toggle(&self) {}

        pub fn retry(&self) {}
    }

    pub fn can_record() -> bool {
        false
    }
}

#[cfg(feature = "hydrate")]
mod browser {
    //! The browser's side: the microphone, the recorder, the level meter and the upload.
    use std::cell::{Cell, RefCell};
    use std::rc::Rc;

    use leptos::prelude::*;
    use wasm_bindgen::JsCast;
    use wasm_bindgen::prelude::*;
    use wasm_bindgen_futures::JsFuture;
    use web_sys::{
        AnalyserNode, AudioContext, Blob, BlobEvent, BlobPropertyBag, DomException, FormData, MediaRecorder,
        MediaRecorderOptions, MediaStream, MediaStreamConstraints, MediaStreamTrack, RequestInit,
    };

    use super::Phase;
    use crate::voice::{
        Correction, MAX_BYTES, MAX_SECONDS, TRANSCRIBE_PATH, TranscribeError, TranscribeFailure, Transcript,
    };

    /// Types the recorder tries, best first: Opus in WebM is what transcription services take
    /// most widely.
    const TYPES: [&str; 4] = ["audio/webm;codecs=opus", "audio/webm", "audio/ogg;codecs=opus", "audio/mp4"];

    /// Whether this browser can record: a microphone API and `MediaRecorder`.
    pub fn can_record() -> bool {
        let window = window();
        let has = |object: &JsValue, name: &str| {
            js_sys::Reflect::has(object, &JsValue::from_str(name)).unwrap_or(false)
        };
        has(&window, "MediaRecorder") && has(&window.navigator(), "mediaDevices")
    }

    /// A recording under way: what must be stopped or let go when it ends.
    struct Recording {
        recorder: MediaRecorder,
        stream: MediaStream,
        audio: Option<AudioContext>,
        meter: Option<gloo_timers::callback::Interval>,
        escape: Option<WindowListenerHandle>,
        /// Set before stopping when the recording is to be thrown away.
        cancelled: Rc<Cell<bool>>,
        _on_data: Closure<dyn FnMut(BlobEvent)>,
        _on_stop: Closure<dyn FnMut()>,
    }

    /// The recorder's controls, copied into the page's event handlers.
    #[derive(Clone, Copy)]
    pub struct Controls {
        session: StoredValue<String>,
        draft: RwSignal<String>,
        voiced: RwSignal<bool>,
        phase: RwSignal<Phase>,
        level: RwSignal<f64>,
        seconds: RwSignal<u32>,
        problem: RwSignal<Option<String>>,
        retry: RwSignal<bool>,
        fixes: RwSignal<Vec<Correction>>,
        recording: StoredValue<Option<Recording>, LocalStorage>,
        /// The last recording the service failed on, kept for one retry.
        kept: StoredValue<Option<Blob>, LocalStorage>,
    }

    impl Controls {
        #[allow(clippy::too_many_arguments)] // each signal is the page's own
        pub fn new(
            session: String,
            draft: RwSignal<String>,
            voiced: RwSignal<bool>,
            phase: RwSignal<Phase>,
            level: RwSignal<f64>,
            seconds: RwSignal<u32>,
            problem: RwSignal<Option<String>>,
            retry: RwSignal<bool>,
            fixes: RwSignal<Vec<Correction>>,
        ) -> Self {
            Self {
                session: StoredValue::new(session),
                draft,
                voiced,
                phase,
                level,
                seconds,
                problem,
                retry,
                fixes,
                recording: StoredValue::new_local(None),
                kept: StoredValue::new_local(None),
            }
        }

        /// Starts recording, or stops and sends what was recorded.
        pub fn toggle(self) {
            match self.phase.get_untracked() {
                Phase::Idle => {
                    self.phase.set(Phase::Asking);
                    self.problem.set(None);
                    leptos::task::spawn_local(async move { self.start().await });
                }
                Phase::Recording => self.stop(false),
                Phase::Asking | Phase::Sending => {}
            }
        }

        /// Sends the kept recording once more.
        pub fn retry(self) {
            let Some(blob) = self.kept.try_update_value(Option::take).flatten() else { return };
            self.retry.set(false);
            self.problem.set(None);
            self.phase.set(Phase::Sending);
            leptos::task::spawn_local(async move { self.send(blob, false).await });
        }

        async fn start(self) {
            let stream = match microphone().await {
                Ok(stream) => stream,
                Err(why) => {
                    self.phase.set(Phase::Idle);
                    self.problem.set(Some(why));
                    return;
                }
            };
            let options = MediaRecorderOptions::new();
            if let Some(kind) = TYPES.iter().find(|t| MediaRecorder::is_type_supported(t)) {
                options.set_mime_type(kind);
            }
            let Ok(recorder) =
                MediaRecorder::new_with_media_stream_and_media_recorder_options(&stream, &options)
            else {
                stop_tracks(&stream);
                self.phase.set(Phase::Idle);
                self.problem.set(Some("This browser cannot record here; type your answer instead.".into()));
                return;
            };
            let chunks: Rc<RefCell<Vec<Blob>>> = Rc::new(RefCell::new(Vec::new()));
            let cancelled = Rc::new(Cell::new(false));
            let on_data = {
                let chunks = chunks.clone();
                Closure::<dyn FnMut(BlobEvent)>::new(move |event: BlobEvent| {
                    if let Some(data) = event.data().filter(|d| d.size() > 0.0) {
                        chunks.borrow_mut().push(data);
                    }
                })
            };
            let on_stop = {
                let (chunks, cancelled, recorder) = (chunks.clone(), cancelled.clone(), recorder.clone());
                Closure::<dyn FnMut()>::new(move || {
                    let parts = js_sys::Array::new();
                    for chunk in chunks.borrow_mut().drain(..) {
                        parts.push(&chunk);
                    }
                    if cancelled.get() {
                        self.phase.set(Phase::Idle);
                        return;
                    }
                    let bag = BlobPropertyBag::new();
                    bag.set_type(&recorder.mime_type());
                    match Blob::new_with_blob_sequence_and_options(&parts, &bag) {
                        Ok(blob) if blob.size() > 0.0 => {
                            self.phase.set(Phase::Sending);
                            leptos::task::spawn_local(async move { self.send(blob, true).await });
                        }
                        Ok(_) | Err(_) => {
                            self.phase.set(Phase::Idle);
                            self.problem.set(Some("Nothing was recorded; try again.".into()));
                        }
                    }
                })
            };
            recorder.set_ondataavailable(Some(on_data.as_ref().unchecked_ref()));
            recorder.set_onstop(Some(on_stop.as_ref().unchecked_ref()));
            if recorder.start_with_time_slice(250).is_err() {
                stop_tracks(&stream);
                self.phase.set(Phase::Idle);
                self.problem.set(Some("The recording could not start; try again.".into()));
                return;
            }
            let (audio, meter) = match level_meter(&stream) {
                Some((audio, analyser)) => {
                    let started = js_sys::Date::now();
                    let meter = gloo_timers::callback::Interval::new(100, move || {
                        let mut samples = [0_u8; 256];
                        analyser.get_byte_time_domain_data(&mut samples);
                        self.level.set(loudness(&samples));
                        #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)] // seconds
                        let elapsed = ((js_sys::Date::now() - started) / 1000.0) as u32;
                        self.seconds.set(elapsed);
                        if elapsed >= MAX_SECONDS {
                            self.stop(false);
                        }
                    });
                    (Some(audio), Some(meter))
                }
                None => (None, None),
            };
            let escape = window_event_listener(leptos::ev::keydown, move |event| {
                if event.key() == "Escape" {
                    self.stop(true);
                }
            });
            self.seconds.set(0);
            self.fixes.set(Vec::new());
            self.recording.set_value(Some(Recording {
                recorder,
                stream,
                audio,
                meter,
                escape: Some(escape),
                cancelled,
                _on_data: on_data,
                _on_stop: on_stop,
            }));
            self.phase.set(Phase::Recording);
        }

        /// Ends the recording: sent (by the recorder's `stop` event) unless `cancel`.
        fn stop(self, cancel: bool) {
            let Some(mut recording) = self.recording.try_update_value(Option::take).flatten() else { return };
            recording.cancelled.set(cancel);
            recording.meter.take();
            if let Some(escape) = recording.escape.take() {
                escape.remove();
            }
            let _ = recording.recorder.stop();
            stop_tracks(&recording.stream);
            if let Some(audio) = recording.audio.take() {
                let _ = audio.close();
            }
            self.level.set(0.0);
            // The closures must outlive the recorder's last events: dropped a moment later.
            set_timeout(move || drop(recording), std::time::Duration::from_secs(2));
        }

        /// Sends a recording; its transcript joins the box. `keep`: on a failure worth
        /// retrying, keep it for one more try.
        async fn send(self, blob: Blob, keep: bool) {
            let outcome = transcribe(&self.session.get_value(), &blob).await;
            self.phase.set(Phase::Idle);
            match outcome {
                Ok(transcript) => {
                    self.draft.update(|draft| {
                        let joined = draft.trim_end();
                        *draft = if joined.is_empty() {
                            transcript.text.clone()
                        } else {
                            format!("{joined} {}", transcript.text)
                        };
                    });
                    self.voiced.set(true);
                    self.fixes.set(transcript.corrections);
                    focus_answer();
                }
                Err(failure) => {
                    let again = keep && failure.code.worth_retrying();
                    if again {
                        self.kept.set_value(Some(blob));
                    }
                    self.retry.set(again);
                    self.problem.set(Some(failure.message));
                }
            }
        }
    }

    /// The microphone's stream, or the sentence that says why not.
    async fn microphone() -> Result<MediaStream, String> {
        let devices = window().navigator().media_devices().map_err(|_| {
            "This browser gives no access to a microphone here; type your answer instead.".to_string()
        })?;
        let constraints = MediaStreamConstraints::new();
        constraints.set_audio(&JsValue::TRUE);
        let asked = devices
            .get_user_media_with_constraints(&constraints)
            .map_err(|_| "The microphone could not be asked for; type your answer instead.".to_string())?;
        match JsFuture::from(asked).await {
            Ok(stream) => {
                stream.dyn_into::<MediaStream>().map_err(|_| "The microphone gave no sound.".to_string())
            }
            Err(error) => {
                let name = error.dyn_into::<DomException>().map(|e| e.name()).unwrap_or_default();
                Err(match name.as_str() {
                    "NotAllowedError" | "SecurityError" => "Warren may not use your microphone: allow it for this site in your browser's settings, or type your answer.",
                    "NotFoundError" | "OverconstrainedError" => "No microphone was found; connect one, or type your answer.",
                    "NotReadableError" | "AbortError" => "The microphone is busy in another program; close it there, or type your answer.",
                    _ => "The microphone could not be started; type your answer instead.",
                }
                .to_string())
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

    /// Posts a recording; its transcript, or the refusal.
    async fn transcribe(session: &str, blob: &Blob) -> Result<Transcript, TranscribeFailure> {
        #[allow(clippy::cast_precision_loss)] // 10 MB
        if blob.size() > MAX_BYTES as f64 {
            return Err(TranscribeError::TooLarge.into());
        }
        let unreachable = || TranscribeFailure {
            code: TranscribeError::Unavailable,
            message: "Warren could not be reached to transcribe; check the connection and try again.".into(),
        };
        let form = FormData::new().map_err(|_| unreachable())?;
        let extension = if blob.type_().contains("ogg") {
            "ogg"
        } else if blob.type_().contains("mp4") {
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
        let status = response.status();
        let text = match response.text() {
            Ok(promise) => JsFuture::from(promise).await.ok().and_then(|t| t.as_string()).unwrap_or_default(),
            Err(_) => String::new(),
        };
        if status == 200 {
            return serde_json::from_str(&text).map_err(|_| unreachable());
        }
        Err(serde_json::from_str::<TranscribeFailure>(&text).unwrap_or_else(|_| unreachable()))
    }

    /// Back to the answer box, to read and send.
    fn focus_answer() {
        if let Some(element) = document().get_element_by_id("answer")
            && let Ok(element) = element.dyn_into::<web_sys::HtmlElement>()
        {
            let _ = element.focus();
        }
    }
}
