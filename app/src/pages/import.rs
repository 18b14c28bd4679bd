//! Importing a set from a file: upload, then a preview of what would be created and what is
//! left out, then the learner's confirmation. Plain forms throughout.

use leptos::prelude::*;
use leptos_meta::Title;

use crate::api::{ImportPreview, get_import_preview};
use crate::components::fields::{FileField, FormMessage};
use crate::components::format::plural;
use crate::components::widgets::{loaded, route_id};
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
                <li><strong>"Anki package (.apkg)"</strong>": each note's front becomes the cue, its back the point; its images come along."</li>
                <li><strong>"A session (.jsonl)"</strong>": a session exported from a history page goes straight into your history, under your set of the same name."</li>
                <li><strong>"Your account's archive (.zip)"</strong>": everything downloaded from your account page comes back at once: every set with its schedule, every session and summary."</li>
            </ul>
            <FormMessage echo=echo.clone() />
            <form method="post" action="/import" enctype="multipart/form-data" class="stack" data-testid="import-form">
                <FileField
                    echo=echo
                    form="import"
                    label="File"
                    accept=".json,.csv,.tsv,.txt,.md,.markdown,.apkg,.jsonl,.zip"
                    hint="Up to 20 MB; an account's archive up to 100 MB."
                />
                <button type="submit" class="button primary">"Preview"</button>
            </form>
        </section>
    }
}

#[component]
pub fn ImportPreviewPage() -> impl IntoView {
    let data = Resource::new(route_id(), get_import_preview);
    loaded(data, |preview| view! { <PreviewView preview /> })
}

#[component]
fn PreviewView(preview: ImportPreview) -> impl IntoView {
    let ImportPreview {
        draft_id,
        file_name,
        format,
        name,
        renamed_from,
        description,
        points,
        point_count,
        resource_count,
        rejected,
        error,
    } = preview;
    let shown = points.len() as u32;
    view! {
        <Title text="Import preview" />
        <section class="page import-preview">
            <p class="crumbs"><a href="/import">"Import"</a></p>
            <h1>"Import “"{name.clone()}"”?"</h1>
            <p class="meta">{format!("{file_name} · {format}")}</p>
            {error.map(|e| view! { <p class="form-error" role="alert" data-testid="import-error">{e}</p> })}
            {renamed_from.map(|from| view! {
                <p class="notice">"You already have a set called “"{from}"”, so this one will be called “"{name.clone()}"”."</p>
            })}
            {(!description.is_empty()).then(|| view! { <p class="lede">{description}</p> })}
            <p data-testid="import-summary">
                {format!("{} and {} will be added.", plural(i64::from(point_count), "point"), plural(i64::from(resource_count), "resource"))}
                {(!rejected.is_empty()).then(|| format!(" {} left out (below).", plural(rejected.len() as i64, "row")))}
            </p>
            <ol class="preview-points" data-testid="import-points">
                {points.into_iter().map(|(content, cue)| view! {
                    <li>{content}{(!cue.is_empty()).then(|| view! { <span class="cue">" · cue: "{cue}</span> })}</li>
                }).collect_view()}
            </ol>
            {(point_count > shown).then(|| view! { <p class="meta">{format!("…and {} more.", point_count - shown)}</p> })}
            {(!rejected.is_empty()).then(|| view! {
                <h2>"Left out"</h2>
                <ul class="rejected" data-testid="import-rejected">
                    {rejected.into_iter().map(|(place, reason)| view! { <li><strong>{place}</strong>": "{reason}</li> }).collect_view()}
                </ul>
            })}
            <div class="actions">
                {(point_count > 0).then(|| view! {
                    <form method="post" action=format!("/import/{draft_id}")>
                        <button type="submit" class="button primary" data-testid="confirm-import">"Import this set"</button>
                    </form>
                })}
                <form method="post" action=format!("/import/{draft_id}/cancel")>
                    <button type="submit" class="button">"Cancel"</button>
                </form>
            </div>
        </section>
    }
}
