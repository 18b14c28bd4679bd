//! A set's resources on its page: text excerpts (shown as the same safe Markdown as agent
//! text) and images, each linked to the points it supports, with forms to add more.

use leptos::prelude::*;

use crate::api::{ResourceKind, ResourceView};
use crate::components::fields::{Field, FileField, FormMessage};
use crate::components::markdown::{Rendered, TypesetMath};
use crate::forms::{FormEcho, limits};

#[component]
pub fn Resources(
    set_id: String,
    resources: Vec<ResourceView>,
    points: Vec<(String, String)>,
) -> impl IntoView {
    let name_of = {
        let points = points.clone();
        move |id: &String| {
            points.iter().position(|(p, _)| p == id).map(|i| format!("point {}", i + 1)).unwrap_or_default()
        }
    };
    view! {
        <h2 id="resources">"Resources"</h2>
        <p class="meta">"Excerpts and images from your own material. The tutor can show them, and a rabbit hole answers from the excerpts."</p>
        <ul class="resources" id="resource-list" data-testid="resources">
            {resources.into_iter().map(|r| {
                let linked = r.point_ids.iter().map(&name_of).filter(|n| !n.is_empty()).collect::<Vec<_>>().join(", ");
                let delete = format!("/sets/{set_id}/resources/{}/delete", r.id);
                let edit = format!("/sets/{set_id}/resources/{}/edit", r.id);
                view! {
                    <li class="resource-card" id=format!("resource-{}", r.id) data-testid="resource">
                        {match (r.kind, r.url.clone()) {
                            (ResourceKind::Image, Some(url)) => view! {
                                <figure>
                                    <img src=url alt=r.title.clone() loading="lazy" />
                                    <figcaption>{r.title.clone()}{r.licence.clone().map(|l| format!(" · {l}"))}</figcaption>
                                </figure>
                            }.into_any(),
                            (ResourceKind::Image, None) | (ResourceKind::Text, _) => view! {
                                <h3>{r.title.clone()}</h3>
                                <Rendered html=excerpt_html(&r.body) />
                            }.into_any(),
                        }}
                        <p class="meta">
                            {if linked.is_empty() { "Not linked to a point".to_string() } else { format!("Linked to {linked}") }}
                            " · "<a href=edit>"Edit"</a>" · "<a href=delete>"Delete…"</a>
                        </p>
                    </li>
                }
            }).collect_view()}
        </ul>
        <TypesetMath within="resource-list".to_string() />
        <AddText set_id=set_id.clone() points=points.clone() />
        <AddImage set_id points />
    }
}

/// An excerpt's Markdown as the server writes it (this page is rendered by the server only).
fn excerpt_html(text: &str) -> String {
    #[cfg(feature = "ssr")]
    return crate::components::markdown::markdown_html(text);
    #[cfg(not(feature = "ssr"))]
    crate::components::markdown::plain_html(text)
}

/// Tick boxes for the points a resource supports.
#[component]
pub(super) fn PointChoices(points: Vec<(String, String)>, chosen: Vec<String>) -> impl IntoView {
    (!points.is_empty()).then(|| {
        view! {
            <fieldset class="choices">
                <legend>"Supports these points (optional)"</legend>
                {points.into_iter().enumerate().map(|(i, (id, label))| {
                    let checked = chosen.contains(&id);
                    view! {
                        <label class="check">
                            <input type="checkbox" name="points" value=id checked=checked />
                            {format!(" {}. {label}", i + 1)}
                        </label>
                    }
                }).collect_view()}
            </fieldset>
        }
    })
}

#[component]
fn AddText(set_id: String, points: Vec<(String, String)>) -> impl IntoView {
    let echo = FormEcho::of("add-text");
    view! {
        <form method="post" action=format!("/sets/{set_id}/resources") enctype="multipart/form-data" class="stack" data-testid="add-text">
            <h3>"Add an excerpt"</h3>
            <FormMessage echo=echo.clone() />
            <Field echo=echo.clone() form="add-text" name="title" label="Title" max=limits::RESOURCE_TITLE required=true />
            <Field echo=echo form="add-text" name="body" label="Text (Markdown)" max=limits::RESOURCE_TEXT required=true rows=5 />
            <PointChoices points chosen=vec![] />
            <button type="submit" class="button">"Add excerpt"</button>
        </form>
    }
}

#[component]
fn AddImage(set_id: String, points: Vec<(String, String)>) -> impl IntoView {
    let echo = FormEcho::of("add-image");
    view! {
        <form method="post" action=format!("/sets/{set_id}/resources") enctype="multipart/form-data" class="stack" data-testid="add-image">
            <h3>"Upload an image"</h3>
            <FormMessage echo=echo.clone() />
            <FileField
                echo=echo.clone()
                form="add-image"
                label="Image file"
                accept="image/png,image/jpeg,image/webp,image/gif"
                hint="PNG, JPEG, WebP or GIF, up to 5 MB."
            />
            <Field echo=echo.clone() form="add-image" name="title" label="Caption" max=limits::RESOURCE_TITLE required=true />
            <Field echo=echo form="add-image" name="licence" label="Source and licence (optional)" max=limits::LICENCE />
            <PointChoices points chosen=vec![] />
            <button type="submit" class="button">"Upload image"</button>
        </form>
    }
}
