//! Confirmation pages: each says exactly what goes and what stays, then deletes on a post.

use leptos::prelude::*;
use leptos_meta::Title;

use super::edit::route_item;
use crate::api::{PointPage, ResourcePage, SetDeletion, get_point, get_resource, get_set_deletion};
use crate::components::widgets::{loaded, route_id};
use crate::format::plural;

/// The confirmation itself: what is at stake, a button that deletes, a way back.
#[component]
fn Confirm(title: String, action: String, back: String, children: Children) -> impl IntoView {
    view! {
        <Title text=title.clone() />
        <section class="page narrow confirm">
            <h1>{title}</h1>
            {children()}
            <form method="post" action=action class="actions">
                <button type="submit" class="button danger" data-testid="confirm-delete">"Delete for good"</button>
                <a class="button" href=back>"Keep it"</a>
            </form>
        </section>
    }
}

#[component]
pub fn DeleteSetPage() -> impl IntoView {
    let data = Resource::new(route_id(), get_set_deletion);
    loaded(data, |set: SetDeletion| {
        view! {
            <Confirm title=format!("Delete “{}”?", set.name) action=format!("/sets/{}/delete", set.id) back=format!("/sets/{}", set.id)>
                <p>"Deleting this set removes, for good:"</p>
                <ul data-testid="what-goes">
                    <li>{plural(i64::from(set.points), "point")}" and their review schedule"</li>
                    <li>{plural(i64::from(set.resources), "resource")}" (excerpts and images)"</li>
                    <li>"the history of its "{plural(i64::from(set.sessions), "session")}</li>
                </ul>
                <p>"Nothing else changes: your other sets and their history stay. To keep the history but stop studying the set, archive it instead."</p>
            </Confirm>
        }
    })
}

#[component]
pub fn DeletePointPage() -> impl IntoView {
    let data = Resource::new(route_item("point"), |(set, point)| get_point(set, point));
    loaded(data, |page: PointPage| {
        let PointPage { set_id, set_name, point } = page;
        view! {
            <Confirm
                title="Delete this point?".into()
                action=format!("/sets/{set_id}/points/{}/delete", point.id)
                back=format!("/sets/{set_id}#point-{}", point.id)
            >
                <blockquote>{point.content}</blockquote>
                <p>"It leaves “"{set_name}"” with its schedule and its "{plural(i64::from(point.reps), "review")}". Sessions that asked about it keep their transcripts."</p>
            </Confirm>
        }
    })
}

#[component]
pub fn DeleteResourcePage() -> impl IntoView {
    let data = Resource::new(route_item("resource"), |(set, resource)| get_resource(set, resource));
    loaded(data, |page: ResourcePage| {
        let ResourcePage { set_id, set_name, resource, .. } = page;
        view! {
            <Confirm
                title=format!("Delete “{}”?", resource.title)
                action=format!("/sets/{set_id}/resources/{}/delete", resource.id)
                back=format!("/sets/{set_id}#resources")
            >
                <p>"It leaves “"{set_name}"”; the points it was linked to stay."</p>
            </Confirm>
        }
    })
}
