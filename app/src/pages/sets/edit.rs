//! Creating a set, and changing a set, a point or a resource.

use leptos::prelude::*;
use leptos_meta::Title;
use leptos_router::hooks::use_params_map;

use crate::api::{PointPage, ResourceKind, ResourcePage, SetDetail, get_point, get_resource, get_set};
use crate::components::fields::{Field, FormMessage};
use crate::components::widgets::{loaded, route_id};
use crate::forms::{FormEcho, limits};

/// The set's own fields: name, description, guidelines.
#[component]
fn SetFieldsForm(
    action: String,
    submit: &'static str,
    name: String,
    description: String,
    guidelines: String,
    /// Where Cancel goes: back where the form was opened from.
    cancel: String,
) -> impl IntoView {
    let echo = FormEcho::of("set");
    view! {
        <form method="post" action=action class="stack" data-testid="set-form">
            <FormMessage echo=echo.clone() />
            <Field echo=echo.clone() form="set" name="name" label="Name" value=name max=limits::SET_NAME required=true />
            <Field
                echo=echo.clone()
                form="set"
                name="description"
                label="Description (optional)"
                value=description
                max=limits::DESCRIPTION
                rows=3
                hint="What the set is about. The tutor reads it, in rabbit holes too."
            />
            <Field
                echo=echo
                form="set"
                name="guidelines"
                label="Guidelines for the tutor (optional)"
                value=guidelines
                max=limits::GUIDELINES
                rows=4
                hint="How to discuss this subject, e.g. “Accept everyday words for the organelles' jobs.” Added to the tutor's instructions."
            />
            <div class="actions">
                <button type="submit" class="button primary">{submit}</button>
                <a class="button" href=cancel>"Cancel"</a>
            </div>
        </form>
    }
}

#[component]
pub fn NewSetPage() -> impl IntoView {
    view! {
        <Title text="New set" />
        <section class="page narrow">
            <p class="crumbs"><a href="/sets">"Recall sets"</a></p>
            <h1>"New recall set"</h1>
            <p class="lede">"Name it for its subject; add its points next."</p>
            <SetFieldsForm
                action="/sets/new".into()
                submit="Create set"
                name=String::new()
                description=String::new()
                guidelines=String::new()
                cancel="/sets".into()
            />
        </section>
    }
}

#[component]
pub fn EditSetPage() -> impl IntoView {
    let data = Resource::new(route_id(), get_set);
    loaded(data, |detail: SetDetail| {
        let id = detail.card.id.clone();
        view! {
            <Title text=format!("Edit {}", detail.card.name) />
            <section class="page narrow">
                <p class="crumbs"><a href=format!("/sets/{id}")>{detail.card.name.clone()}</a></p>
                <h1>"Edit set"</h1>
                <SetFieldsForm
                    action=format!("/sets/{id}/edit")
                    submit="Save"
                    name=detail.card.name
                    description=detail.card.description
                    guidelines=detail.guidelines
                    cancel=format!("/sets/{id}")
                />
            </section>
        }
    })
}

/// The set and the item (`point` or `resource`) named in the route.
pub fn route_item(item: &'static str) -> impl Fn() -> (String, String) + Clone + Send + Sync + 'static {
    let params = use_params_map();
    move || params.with(|p| (p.get("id").unwrap_or_default(), p.get(item).unwrap_or_default()))
}

#[component]
pub fn EditPointPage() -> impl IntoView {
    let data = Resource::new(route_item("point"), |(set, point)| get_point(set, point));
    loaded(data, |page: PointPage| {
        let echo = FormEcho::of("point");
        let PointPage { set_id, set_name, point } = page;
        view! {
            <Title text="Edit point" />
            <section class="page narrow">
                <p class="crumbs"><a href=format!("/sets/{set_id}#point-{}", point.id)>{set_name}</a></p>
                <h1>"Edit point"</h1>
                <form method="post" action=format!("/sets/{set_id}/points/{}/edit", point.id) class="stack" data-testid="point-form">
                    <FormMessage echo=echo.clone() />
                    <Field echo=echo.clone() form="point" name="content" label="What to recall" value=point.content max=limits::POINT required=true rows=3 focus=true />
                    <Field echo=echo form="point" name="context" label="Cue (optional)" value=point.context max=limits::CUE rows=2 />
                    <label class="check">
                        <input type="checkbox" name="reset_schedule" value="on" />
                        " Reset its schedule (treat it as new). Otherwise its reviews so far are kept."
                    </label>
                    <div class="actions">
                        <button type="submit" class="button primary">"Save"</button>
                        <a class="button" href=format!("/sets/{set_id}#point-{}", point.id)>"Cancel"</a>
                    </div>
                </form>
            </section>
        }
    })
}

/// An excerpt's title and text, or an image's caption and licence, and the points it supports.
#[component]
pub fn EditResourcePage() -> impl IntoView {
    let data = Resource::new(route_item("resource"), |(set, resource)| get_resource(set, resource));
    loaded(data, |page: ResourcePage| {
        let echo = FormEcho::of("resource");
        let ResourcePage { set_id, set_name, resource, points } = page;
        let choices: Vec<(String, String)> =
            points.into_iter().map(|(id, content)| (id, super::short(&content))).collect();
        let image = resource.kind == ResourceKind::Image;
        let (heading, title_label) =
            if image { ("Edit image", "Caption") } else { ("Edit excerpt", "Title") };
        view! {
            <Title text=heading />
            <section class="page narrow">
                <p class="crumbs"><a href=format!("/sets/{set_id}#resource-{}", resource.id)>{set_name}</a></p>
                <h1>{heading}</h1>
                <form
                    method="post"
                    action=format!("/sets/{set_id}/resources/{}/edit", resource.id)
                    enctype="multipart/form-data"
                    class="stack"
                    data-testid="resource-form"
                >
                    <FormMessage echo=echo.clone() />
                    {resource.url.clone().filter(|_| image).map(|url| view! {
                        <img class="preview" src=url alt=resource.title.clone() />
                    })}
                    <Field echo=echo.clone() form="resource" name="title" label=title_label value=resource.title.clone() max=limits::RESOURCE_TITLE required=true />
                    {if image {
                        view! {
                            <Field echo=echo.clone() form="resource" name="licence" label="Source and licence (optional)" value=resource.licence.clone().unwrap_or_default() max=limits::LICENCE />
                        }.into_any()
                    } else {
                        view! {
                            <Field echo=echo.clone() form="resource" name="body" label="Text (Markdown)" value=resource.body.clone() max=limits::RESOURCE_TEXT required=true rows=10 />
                        }.into_any()
                    }}
                    <super::resources::PointChoices points=choices chosen=resource.point_ids.clone() />
                    <div class="actions">
                        <button type="submit" class="button primary">"Save"</button>
                        <a class="button" href=format!("/sets/{set_id}#resource-{}", resource.id)>"Cancel"</a>
                    </div>
                </form>
            </section>
        }
    })
}
