//! Points from the learner's own material: the source form (a new set, or more points for a
//! set of theirs), the drafting's progress, and the review of the drafts before anything is
//! kept. Plain forms throughout; without JavaScript the progress page refreshes itself.

use leptos::prelude::*;
use leptos_meta::Title;

use crate::api::{DraftView, SourceForm, SourceStage, SourceView, get_source, get_source_form};
use crate::components::await_progress::AwaitProgress;
use crate::components::fields::{Field, FileField, FormMessage};
use crate::components::widgets::{loaded, loaded_until_done, route_id};
use crate::format::plural;
use crate::forms::{FormEcho, limits};

/// New set from a source.
#[component]
pub fn NewSourcePage() -> impl IntoView {
    let form = Resource::new(|| (), |()| get_source_form(None));
    loaded(form, |form| view! { <SourceFormView form /> })
}

/// Add points from a source, to a set of the learner's.
#[component]
pub fn SetSourcePage() -> impl IntoView {
    let form = Resource::new(route_id(), |id| get_source_form(Some(id)));
    loaded(form, |form| view! { <SourceFormView form /> })
}

#[component]
fn SourceFormView(form: SourceForm) -> impl IntoView {
    let echo = FormEcho::of("source");
    let (title, action, back) = match (&form.set_id, &form.set_name) {
        (Some(id), Some(name)) => (
            format!("Add points to “{name}” from a source"),
            format!("/sets/{id}/source"),
            format!("/sets/{id}"),
        ),
        (Some(_), None) | (None, Some(_)) | (None, None) => {
            ("New set from a source".to_string(), "/sets/new/source".to_string(), "/sets".to_string())
        }
    };
    let new_set = form.set_id.is_none();
    view! {
        <Title text=title.clone() />
        <section class="page narrow">
            <p class="crumbs"><a href=back>{if new_set { "Recall sets" } else { "Back to the set" }}</a></p>
            <h1>{title}</h1>
            <p class="lede">
                "Paste your notes, a chapter or an article, or choose a file: Warren drafts recall points from it, each with the words of your source it rests on. Nothing is added until you have looked them over."
            </p>
            <FormMessage echo=echo.clone() />
            <form method="post" action=action enctype="multipart/form-data" class="stack" data-testid="source-form">
                {new_set.then(|| view! {
                    <Field echo=echo.clone() form="source" name="name" label="The new set's name" max=limits::SET_NAME required=true />
                })}
                <Field
                    echo=echo.clone()
                    form="source"
                    name="text"
                    label="Text or Markdown"
                    max=limits::SOURCE_CHARS
                    rows=12
                    hint="Up to 200,000 characters. Or choose a file below instead."
                />
                <FileField
                    echo=echo
                    form="source"
                    label="Or a file"
                    accept=".txt,.md,.markdown,.html,.htm,.pdf"
                    hint="Text, Markdown, a web page (.html) or a PDF with text in it, up to 20 MB."
                    optional=true
                />
                <button type="submit" class="button primary">"Draft points"</button>
            </form>
        </section>
    }
}

/// A source: its drafting under way, or its drafts to review.
#[component]
pub fn SourcePage() -> impl IntoView {
    let source = Resource::new(route_id(), get_source);
    loaded_until_done(
        source,
        "These drafts have been kept or put aside already, or are not yours to see.",
        |source| view! { <SourceView source /> },
    )
}

#[component]
fn SourceView(source: SourceView) -> impl IntoView {
    let SourceView { id, title, set_id, set_name, stage, passages, passages_done, drafts, not_drafted } =
        source;
    let into =
        if set_id.is_some() { format!("“{set_name}”") } else { format!("a new set, “{set_name}”") };
    let again = format!("/sources/{id}/again");
    let cancel = format!("/sources/{id}/cancel");
    let body = match stage {
        SourceStage::Drafting => view! {
            // Without JavaScript, the page asks again by itself.
            <noscript><meta http-equiv="refresh" content="2" /></noscript>
            <p role="status">{format!("Drafting points for {into} from “{title}”…")}</p>
            <AwaitProgress
                url=format!("/sources/{id}/progress")
                done=passages_done
                total=passages
                unit="passages".to_string()
                then=format!("/sources/{id}")
                finished="The drafts are ready: review them.".to_string()
                test_id="draft-progress".to_string()
            />
            <p class="meta">"You can leave this page and come back: the drafts are kept for a day."</p>
        }
        .into_any(),
        SourceStage::Stopped | SourceStage::Failed(_) => {
            let why = match &stage {
                SourceStage::Failed(why) if !why.is_empty() => why.clone(),
                SourceStage::Drafting
                | SourceStage::Ready
                | SourceStage::Stopped
                | SourceStage::Failed(_) => "The drafting stopped before it finished.".to_string(),
            };
            view! {
                <p class="form-error" role="alert" data-testid="drafting-stopped">{why}</p>
                <form method="post" action=again.clone()>
                    <button type="submit" class="button primary">"Draft it again"</button>
                </form>
            }
            .into_any()
        }
        SourceStage::Ready => view! { <DraftsReview id=id.clone() into drafts not_drafted /> }.into_any(),
    };
    view! {
        <Title text="Drafted points" />
        <section class="page source" data-testid="source">
            <h1>"Points from “"{title.clone()}"”"</h1>
            {body}
            // Asked twice: the drafts, and the text they were drafted from, go for good.
            <details class="drop" data-testid="drop">
                <summary class="button" data-testid="drop-drafts">"Drop them all"</summary>
                <form method="post" action=cancel class="actions">
                    <p>"The drafts go, and so does the text they were drafted from; no point is added."</p>
                    <button type="submit" class="button danger" data-testid="confirm-drop">"Drop them for good"</button>
                </form>
            </details>
        </section>
    }
}

/// The drafts, each with its quote and checks, to untick, edit, or merge with the next.
#[component]
fn DraftsReview(id: String, into: String, drafts: Vec<DraftView>, not_drafted: Vec<u32>) -> impl IntoView {
    let echo = FormEcho::of("drafts");
    let sent_back = echo.is_some();
    let count = drafts.len();
    let summary = if count == 0 {
        "Nothing in it reads as a point to recall. Try a passage that explains or defines things.".to_string()
    } else {
        format!(
            "{} drafted for {into}. Untick what you do not want, edit what you keep, then keep them.",
            plural(i64::try_from(count).unwrap_or(i64::MAX), "point")
        )
    };
    let kept_error = FormEcho::error(&echo, "kept");
    // A quote's passage is worth naming only when the source had several.
    let several = drafts.windows(2).any(|pair| pair[0].passage != pair[1].passage);
    view! {
        <p class="lede" data-testid="drafts-summary">{summary}</p>
        {(!not_drafted.is_empty()).then(|| view! {
            <p class="notice warning" role="status" data-testid="not-drafted">
                {format!(
                    "Not drafted (the model did not answer, or its answer could not be read): {} {}.",
                    if not_drafted.len() == 1 { "passage" } else { "passages" },
                    not_drafted.iter().map(u32::to_string).collect::<Vec<_>>().join(", ")
                )}
            </p>
        })}
        {kept_error.map(|e| view! { <p class="form-error" role="alert" data-testid="error-kept">{e}</p> })}
        <form method="post" action=format!("/sources/{id}") class="drafts" data-testid="drafts-form">
            <ol class="drafts-list">
                {drafts.into_iter().enumerate().map(|(i, draft)| {
                    // A draft the set already has starts unticked.
                    let default_keep = !draft.checks.contains(&crate::api::DraftCheck::Duplicate);
                    let keep = if sent_back { !FormEcho::value(&echo, &format!("keep-{i}"), "").is_empty() } else { default_keep };
                    let content = FormEcho::value(&echo, &format!("content-{i}"), &draft.content);
                    let cue = FormEcho::value(&echo, &format!("cue-{i}"), &draft.cue);
                    let content_error = FormEcho::error(&echo, &format!("content-{i}"));
                    view! {
                        <li class="draft" data-testid="draft">
                            <label class="check">
                                <input type="checkbox" name=format!("keep-{i}") checked=keep data-testid="keep" />
                                {format!(" Keep point {}", i + 1)}
                            </label>
                            <label for=format!("content-{i}")>"Point"</label>
                            <textarea id=format!("content-{i}") name=format!("content-{i}") rows="3" data-testid="draft-content">
                                {html_escape::encode_text(&content).into_owned()}
                            </textarea>
                            {content_error.map(|e| view! { <p class="field-error" role="alert">{e}</p> })}
                            <label for=format!("cue-{i}")>"Cue"</label>
                            // A text area: a long cue wraps on a phone instead of running out of sight.
                            <textarea id=format!("cue-{i}") name=format!("cue-{i}") rows="2" data-testid="draft-cue">
                                {html_escape::encode_text(&cue).into_owned()}
                            </textarea>
                            // The source's words, where the point says them otherwise.
                            {(!same_words(&draft.quote, &draft.content)).then(|| view! {
                                <blockquote class="quote" data-testid="draft-quote">
                                    {draft.quote.clone()}
                                    {several.then(|| view! { <footer>{format!("passage {}", draft.passage)}</footer> })}
                                </blockquote>
                            })}
                            {(!draft.checks.is_empty()).then(|| view! {
                                <ul class="checks" data-testid="draft-checks">
                                    {draft.checks.iter().map(|c| view! { <li data-check=c.as_str()>{c.message()}</li> }).collect_view()}
                                </ul>
                            })}
                            {(i + 1 < count).then(|| view! {
                                <label class="check merge">
                                    <input type="checkbox" name=format!("merge-{i}") />
                                    " Merge with the next point"
                                </label>
                            })}
                        </li>
                    }
                }).collect_view()}
            </ol>
            {(count > 0).then(|| view! {
                <button type="submit" class="button primary" data-testid="keep-drafts">"Keep the ticked points"</button>
            })}
        </form>
    }
}

/// Whether a draft says its quote word for word (case, spacing and the closing stop aside).
fn same_words(quote: &str, content: &str) -> bool {
    let words = |text: &str| -> Vec<String> {
        text.split_whitespace().map(|w| w.trim_end_matches(['.', '!', '?']).to_lowercase()).collect()
    };
    words(quote) == words(content)
}
