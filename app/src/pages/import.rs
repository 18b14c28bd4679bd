//! Importing a set from a file: upload, then a preview of what would be created and what is
//! left out, then the learner's confirmation. Plain forms throughout.

use leptos::prelude::*;
use leptos_meta::Title;

use crate::api::{ImportPreview, PreviewSet, get_import_preview};
use crate::components::fields::{FileField, FormMessage};
use crate::components::markdown::{TypesetMath, math_html};
use crate::components::widgets::{loaded_until_done, route_id};
use crate::format::plural;
use crate::forms::FormEcho;

#[component]
pub fn ImportPage() -> impl IntoView {
    let echo = FormEcho::of("import");
    view! {
        <Title text="Import a set" />
        <section class="page narrow">
            <p class="crumbs"><a href="/sets">"Recall sets"</a></p>
            <h1>"Import a set"</h1>
            <p class="lede">"Bring your own material. You will see what the file holds before anything is added."</p>
            <ul class="meta">
                <li><strong>"Warren JSON"</strong>": a set exported from Warren, with its schedule and resources."</li>
                <li><strong>"CSV"</strong>": one point a row, then its cue; a first row may name the columns (content, cue)."</li>
                <li><strong>"Markdown"</strong>": a heading names the set; each list item is a point; an indented line under it is its cue."</li>
                <li><strong>"Anki package (.apkg, .colpkg)"</strong>": each deck becomes a set; each note's front becomes the cue, its back the point (a cloze note gives a point per deletion); its images and its review history come along."</li>
                <li><strong>"A session (.jsonl)"</strong>": a session exported from a history page goes straight into your history, under your set of the same name."</li>
                <li><strong>"Your account's archive (.zip)"</strong>": everything downloaded from your account page comes back at once: every set with its schedule, every session and summary."</li>
            </ul>
            <FormMessage echo=echo.clone() />
            <form method="post" action="/import" enctype="multipart/form-data" class="stack" data-testid="import-form">
                <FileField
                    echo=echo
                    form="import"
                    label="File"
                    accept=".json,.csv,.tsv,.txt,.md,.markdown,.apkg,.colpkg,.jsonl,.zip"
                    hint="Up to 20 MB; an Anki package or an account's archive up to 100 MB."
                />
                <button type="submit" class="button primary">"Preview"</button>
            </form>
        </section>
    }
}

#[component]
pub fn ImportPreviewPage() -> impl IntoView {
    let data = Resource::new(route_id(), get_import_preview);
    loaded_until_done(
        data,
        "This file has been imported already, or its preview was put aside or has expired.",
        |preview| view! { <PreviewView preview /> },
    )
}

#[component]
fn PreviewView(preview: ImportPreview) -> impl IntoView {
    let ImportPreview { draft_id, file_name, format, sets, error } = preview;
    let several = sets.len() > 1;
    let suspended: usize = sets.iter().map(|s| s.suspended.len()).sum();
    let title = match sets.as_slice() {
        [one] => format!("Import “{}”?", one.name),
        _ => format!("Import {} sets?", sets.len()),
    };
    // A deck whose every card is suspended can still be taken, with its suspended points.
    let importable = sets.iter().any(|s| s.point_count > 0 || !s.suspended.is_empty());
    let confirm = if several { "Import the ticked decks" } else { "Import this set" };
    view! {
        <Title text="Import preview" />
        <section class="page import-preview">
            <p class="crumbs"><a href="/import">"Import"</a></p>
            <h1>{title}</h1>
            <p class="meta">{format!("{file_name} · {format}")}</p>
            {error.map(|e| view! { <p class="form-error" role="alert" data-testid="import-error">{e}</p> })}
            {several.then(|| view! {
                <p class="lede">"Each deck becomes a set of its own. Untick a deck to leave it out."</p>
            })}
            <form method="post" action=format!("/import/{draft_id}") id="confirm-import">
                {several.then(|| view! { <input type="hidden" name="choose" value="decks" /> })}
                {sets.into_iter().enumerate().map(|(i, set)| view! { <PreviewSetView i set several /> }).collect_view()}
                {(suspended > 0).then(|| view! {
                    <label class="check" data-testid="include-suspended">
                        <input type="checkbox" name="suspended" />
                        {format!(" Also import the points of {}", plural(suspended as i64, "suspended card"))}
                    </label>
                })}
            </form>
            <TypesetMath within="confirm-import".to_string() />
            <div class="actions">
                {importable.then(|| view! {
                    <button type="submit" form="confirm-import" class="button primary" data-testid="confirm-import">{confirm}</button>
                })}
                <form method="post" action=format!("/import/{draft_id}/cancel")>
                    <button type="submit" class="button">"Cancel"</button>
                </form>
            </div>
        </section>
    }
}

/// One set of the preview: its name, what it adds and brings, and what it leaves out; a box
/// to tick when the file holds several.
#[component]
fn PreviewSetView(i: usize, set: PreviewSet, several: bool) -> impl IntoView {
    let PreviewSet {
        name,
        renamed_from,
        description,
        points,
        point_count,
        resource_count,
        review_count,
        suspended,
        rejected,
    } = set;
    let shown = points.len() as u32;
    // The list shows suspended points too; the count leaves them out.
    let listed = point_count + suspended.len() as u32;
    let heading = if several {
        view! {
            <h2>
                <label class="check">
                    <input type="checkbox" name=format!("deck-{i}") checked={point_count > 0} disabled={point_count == 0 && suspended.is_empty()} data-testid="deck-choice" />
                    " "{name.clone()}
                </label>
            </h2>
        }
        .into_any()
    } else {
        ().into_any()
    };
    let mut summary = format!(
        "{} and {} will be added.",
        plural(i64::from(point_count), "point"),
        plural(i64::from(resource_count), "resource")
    );
    if review_count > 0 {
        summary.push_str(&format!(" They bring {} with them.", plural(i64::from(review_count), "review")));
    }
    if !suspended.is_empty() {
        summary.push_str(&format!(
            " {} more {} suspended in Anki: left out unless ticked in below.",
            suspended.len(),
            if suspended.len() == 1 { "is" } else { "are" }
        ));
    }
    if !rejected.is_empty() {
        summary.push_str(&format!(" {} left out, each with its reason below.", rejected.len()));
    }
    view! {
        <section class="preview-set" data-testid="preview-set">
            {heading}
            {renamed_from.map(|from| view! {
                <p class="notice">"You already have a set called “"{from}"”, so this one will be called “"{name.clone()}"”."</p>
            })}
            {(!description.is_empty()).then(|| view! { <p class="lede">{description}</p> })}
            <p data-testid="import-summary">{summary}</p>
            <ol class="preview-points" data-testid="import-points">
                {points.into_iter().map(|(content, cue)| {
                    let held = suspended.contains(&content);
                    view! {
                        <li class:suspended=held>
                            <span inner_html=math_html(&content)></span>
                            {(!cue.is_empty()).then(|| view! { <span class="cue">" · cue: "<span inner_html=math_html(&cue)></span></span> })}
                            {held.then(|| view! { <span class="pill">" suspended"</span> })}
                        </li>
                    }
                }).collect_view()}
            </ol>
            {(listed > shown).then(|| view! { <p class="meta">{format!("…and {} more.", listed - shown)}</p> })}
            {(!rejected.is_empty()).then(|| view! {
                <h3>"Left out"</h3>
                <ul class="rejected" data-testid="import-rejected">
                    {rejected.into_iter().map(|(place, reason)| view! { <li><strong>{place}</strong>": "{reason}</li> }).collect_view()}
                </ul>
            })}
        </section>
    }
}
