//! Authoring through the real forms: sets, points and resources created, changed, archived
//! and deleted; errors sent back with what was typed; images checked by their bytes and
//! served only to their owner.

use reqwest::multipart::{Form, Part};

use crate::common::{Learner, TestApp};

/// The smallest valid PNG (1×1, transparent).
pub const PNG: &[u8] = &[
    0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0x00, 0x00, 0x00, 0x0D, 0x49, 0x48, 0x44, 0x52, 0x00,
    0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x01, 0x08, 0x06, 0x00, 0x00, 0x00, 0x1F, 0x15, 0xC4, 0x89, 0x00,
    0x00, 0x00, 0x0D, 0x49, 0x44, 0x41, 0x54, 0x78, 0x9C, 0x63, 0x00, 0x01, 0x00, 0x00, 0x05, 0x00, 0x01,
    0x0D, 0x0A, 0x2D, 0xB4, 0x00, 0x00, 0x00, 0x00, 0x49, 0x45, 0x4E, 0x44, 0xAE, 0x42, 0x60, 0x82,
];

impl TestApp {
    pub async fn post_form_as(
        &self,
        learner: &Learner,
        path: &str,
        fields: &[(&str, &str)],
    ) -> reqwest::Response {
        self.http.post(self.url(path)).header("cookie", &learner.cookie).form(fields).send().await.unwrap()
    }

    pub async fn post_form(&self, path: &str, fields: &[(&str, &str)]) -> reqwest::Response {
        self.post_form_as(&self.learner, path, fields).await
    }

    pub async fn page_as(&self, learner: &Learner, path: &str) -> (u16, String) {
        let res = self.http.get(self.url(path)).header("cookie", &learner.cookie).send().await.unwrap();
        (res.status().as_u16(), res.text().await.unwrap())
    }

    pub async fn page(&self, path: &str) -> (u16, String) {
        self.page_as(&self.learner, path).await
    }

    /// Creates a set through its form; returns its id.
    pub async fn new_set(&self, name: &str) -> String {
        let res = self
            .post_form("/sets/new", &[("name", name), ("description", "Mine."), ("guidelines", "")])
            .await;
        assert_eq!(res.status(), 303, "{}", res.text().await.unwrap_or_default());
        let location = res.headers()["location"].to_str().unwrap().to_string();
        location.trim_start_matches("/sets/").to_string()
    }

    pub async fn post_multipart(&self, who: &Learner, path: &str, form: Form) -> reqwest::Response {
        self.http.post(self.url(path)).header("cookie", &who.cookie).multipart(form).send().await.unwrap()
    }

    pub async fn upload(&self, set: &str, form: Form) -> reqwest::Response {
        self.post_multipart(&self.learner, &format!("/sets/{set}/resources"), form).await
    }

    pub async fn edit_resource(
        &self,
        who: &Learner,
        set: &str,
        resource: &str,
        form: Form,
    ) -> reqwest::Response {
        self.post_multipart(who, &format!("/sets/{set}/resources/{resource}/edit"), form).await
    }
}

#[tokio::test]
async fn a_set_is_created_edited_archived_and_deleted() {
    let app = TestApp::spawn().await;
    let id = app.new_set("Anatomy").await;
    let (status, html) = app.page(&format!("/sets/{id}")).await;
    assert_eq!(status, 200);
    assert!(html.contains("Anatomy") && html.contains("No points yet"), "{html}");
    assert!(html.contains("Add a point to start."), "a set without points says why it cannot start");

    let res = app
        .post_form(
            &format!("/sets/{id}/edit"),
            &[("name", "Human anatomy"), ("description", "Bones."), ("guidelines", "Latin names are fine.")],
        )
        .await;
    assert_eq!(res.status(), 303);
    let set = app.store().set(app.owner(), &id).await.unwrap().unwrap();
    assert_eq!((set.name.as_str(), set.guidelines.as_str()), ("Human anatomy", "Latin names are fine."));

    // Archived: off the dashboard, not startable, still on the sets page.
    assert_eq!(app.post_form(&format!("/sets/{id}/archive"), &[]).await.status(), 303);
    let (_, dashboard) = app.page("/").await;
    assert!(!dashboard.contains("Human anatomy"), "archived sets leave the dashboard");
    let (_, sets) = app.page("/sets").await;
    assert!(sets.contains("data-testid=\"archived-sets\"") && sets.contains("Human anatomy"));
    app.store().add_point(app.owner(), &id, "The femur is the longest bone.", "").await.unwrap();
    let refused = app.engine.start_session(app.owner(), &id, true).await;
    assert!(matches!(refused, Err(warren::engine::EngineError::Archived)));
    assert_eq!(app.post_form(&format!("/sets/{id}/unarchive"), &[]).await.status(), 303);
    assert!(app.engine.start_session(app.owner(), &id, true).await.is_ok());

    // Deleting says what goes, then takes it all.
    let (status, confirm) = app.page(&format!("/sets/{id}/delete")).await;
    assert_eq!(status, 200);
    assert!(
        confirm.contains("1 point")
            && confirm.contains("1 session")
            && confirm.contains("Nothing else changes"),
        "{confirm}"
    );
    let res = app.post_form(&format!("/sets/{id}/delete"), &[]).await;
    assert_eq!((res.status().as_u16(), res.headers()["location"].to_str().unwrap()), (303, "/sets"));
    assert_eq!(app.page(&format!("/sets/{id}")).await.0, 404);
    assert!(app.store().sessions(app.owner()).await.unwrap().iter().all(|s| s.set_id.as_ref() != Some(&id)));
}

#[tokio::test]
async fn a_form_at_fault_comes_back_with_what_was_typed() {
    let app = TestApp::spawn().await;
    let res = app
        .post_form(
            "/sets/new",
            &[("name", "  "), ("description", "Kept <b>as typed</b>"), ("guidelines", "")],
        )
        .await;
    assert_eq!(res.status(), 422);
    let html = res.text().await.unwrap();
    assert!(html.contains("Give the set a name."), "{html}");
    assert!(html.contains("Kept &lt;b&gt;as typed&lt;/b&gt;"), "typed text comes back, escaped: {html}");

    // Names are unique per learner, whatever their case.
    app.new_set("Botany").await;
    let res =
        app.post_form("/sets/new", &[("name", "botany"), ("description", ""), ("guidelines", "")]).await;
    assert_eq!(res.status(), 422);
    assert!(res.text().await.unwrap().contains("You already have a set called"));
    let long = "x".repeat(warren_app::forms::limits::SET_NAME + 1);
    let res =
        app.post_form("/sets/new", &[("name", long.as_str()), ("description", ""), ("guidelines", "")]).await;
    assert_eq!(res.status(), 422);
    assert!(res.text().await.unwrap().contains("At most 100 characters"));
    // Another learner may use the same name.
    let other = app.sign_up("other").await;
    let res = app
        .post_form_as(&other, "/sets/new", &[("name", "Botany"), ("description", ""), ("guidelines", "")])
        .await;
    assert_eq!(res.status(), 303);
}

#[tokio::test]
async fn points_are_added_edited_reordered_and_deleted() {
    let app = TestApp::spawn().await;
    let set = app.new_set("Rivers").await;
    for (content, cue) in [
        ("The Nile is the longest river.", "Which river is longest?"),
        ("The Amazon carries the most water.", ""),
        ("The Danube crosses ten countries.", ""),
    ] {
        assert_eq!(
            app.post_form(&format!("/sets/{set}/points"), &[("content", content), ("context", cue)])
                .await
                .status(),
            303
        );
    }
    let res =
        app.post_form(&format!("/sets/{set}/points"), &[("content", ""), ("context", "kept cue")]).await;
    assert_eq!(res.status(), 422);
    let html = res.text().await.unwrap();
    assert!(html.contains("Give the point to recall.") && html.contains("kept cue"), "{html}");

    let points = app.store().points(app.owner(), &set).await.unwrap();
    let (nile, amazon, danube) = (&points[0], &points[1], &points[2]);
    let (_, page) = app.page(&format!("/sets/{set}")).await;
    assert!(page.contains("Which river is longest?"), "the set page shows the cue");

    // A review, then an edit that keeps the schedule, then one that resets it.
    let outcome = warren::store::NewOutcome {
        session_id: app.engine.start_session(app.owner(), &set, true).await.unwrap().id,
        point_id: nile.id.clone(),
        rating: warren_app::schedule::Rating::Good,
        confidence: 0.9,
        entry_id: None,
        in_rabbithole: false,
        at: warren::store::now_ms(),
    };
    let card = app.store().record_recall(app.owner(), &outcome).await.unwrap().expect("recorded");
    assert_eq!((card.reps, card.state.as_str()), (1, "review"));
    let edit = format!("/sets/{set}/points/{}/edit", nile.id);
    // The page is there to change the point: its words have the focus.
    let (_, form) = app.page(&edit).await;
    let focused: Vec<&str> =
        form.match_indices("autofocus").map(|(i, _)| &form[i.saturating_sub(200)..i]).collect();
    assert!(focused.len() == 1 && focused[0].contains("name=\"content\""), "{focused:?}");
    assert_eq!(
        app.post_form(&edit, &[("content", "The Nile is the longest river on Earth."), ("context", "")])
            .await
            .status(),
        303
    );
    let kept = app.store().point(app.owner(), &nile.id).await.unwrap().unwrap();
    assert_eq!((kept.content.as_str(), &kept.card), ("The Nile is the longest river on Earth.", &card));
    assert_eq!(
        app.post_form(&edit, &[("content", "The Nile is long."), ("context", ""), ("reset_schedule", "on")])
            .await
            .status(),
        303
    );
    let reset = app.store().point(app.owner(), &nile.id).await.unwrap().unwrap();
    assert_eq!((reset.card.reps, reset.card.state.as_str()), (0, "new"));

    let down = format!("/sets/{set}/points/{}/move", nile.id);
    let moved = app.post_form(&down, &[("direction", "down")]).await;
    assert_eq!(moved.status(), 303);
    // Back on the set page, the arrow pressed has the focus again, so a keyboard can press it
    // once more.
    let back = moved.headers()["location"].to_str().unwrap().to_string();
    assert_eq!(back, format!("/sets/{set}?moved={}&to=down", nile.id));
    let (_, page) = app.page(&back).await;
    let focused: Vec<&str> =
        page.match_indices("autofocus").map(|(i, _)| &page[i.saturating_sub(300)..i]).collect();
    assert_eq!(focused.len(), 1, "one arrow has the focus");
    assert!(
        focused[0].contains(&format!("points/{}/move", nile.id)) && focused[0].contains("value=\"down\"")
    );
    let order: Vec<String> =
        app.store().points(app.owner(), &set).await.unwrap().into_iter().map(|p| p.id).collect();
    assert_eq!(order, [amazon.id.clone(), nile.id.clone(), danube.id.clone()]);

    let (status, confirm) = app.page(&format!("/sets/{set}/points/{}/delete", danube.id)).await;
    assert_eq!(status, 200);
    assert!(confirm.contains("The Danube crosses ten countries."));
    assert_eq!(app.post_form(&format!("/sets/{set}/points/{}/delete", danube.id), &[]).await.status(), 303);
    assert_eq!(app.store().points(app.owner(), &set).await.unwrap().len(), 2);
    // A point named under another set's address is not found.
    let other = app.new_set("Lakes").await;
    assert_eq!(app.post_form(&format!("/sets/{other}/points/{}/delete", amazon.id), &[]).await.status(), 404);
}

#[tokio::test]
async fn images_are_checked_by_their_bytes_and_served_only_to_their_owner() {
    let app = TestApp::spawn().await;
    let set = app.new_set("Cells").await;
    app.post_form(&format!("/sets/{set}/points"), &[("content", "Mitochondria make ATP."), ("context", "")])
        .await;
    let point = app.store().points(app.owner(), &set).await.unwrap().remove(0);

    let form = Form::new()
        .text("title", "A mitochondrion")
        .text("licence", "CC0")
        .text("points", point.id.clone())
        .part("file", Part::bytes(PNG.to_vec()).file_name("looks-like.txt"));
    assert_eq!(app.upload(&set, form).await.status(), 303);
    let resources = app.store().resources(app.owner(), &set).await.unwrap();
    let image = &resources[0];
    assert_eq!((image.kind.as_str(), image.mime_type.as_deref()), ("image", Some("image/png")));
    assert_eq!(image.points, vec![(point.id.clone(), 1.0)]);
    let url = app.url(image.url.as_deref().unwrap());
    let res = app.http.get(&url).header("cookie", &app.learner.cookie).send().await.unwrap();
    assert_eq!(res.status(), 200);
    assert_eq!(res.headers()["content-type"], "image/png");
    assert_eq!(res.headers()["x-content-type-options"], "nosniff");
    assert_eq!(res.bytes().await.unwrap().as_ref(), PNG);
    let stranger = app.sign_up("stranger").await;
    let res = app.http.get(&url).header("cookie", &stranger.cookie).send().await.unwrap();
    assert_eq!(res.status(), 404);

    // A file that only claims to be an image, and one over the cap.
    let fake = Form::new()
        .text("title", "Not really")
        .part("file", Part::bytes(b"<svg onload=alert(1)>".to_vec()).file_name("x.png"));
    let res = app.upload(&set, fake).await;
    assert_eq!(res.status(), 422);
    assert!(res.text().await.unwrap().contains("not a PNG, JPEG, WebP or GIF"));
    let mut huge = PNG.to_vec();
    huge.resize(warren_app::forms::limits::IMAGE_BYTES + 1, 0);
    let res = app
        .upload(&set, Form::new().text("title", "Huge").part("file", Part::bytes(huge).file_name("h.png")))
        .await;
    assert_eq!(res.status(), 422);
    assert!(res.text().await.unwrap().contains("at most 5 MB"));

    // A text excerpt, rendered as safe Markdown on the set page.
    let text = Form::new()
        .text("title", "Notes")
        .text("body", "**Energy** <script>alert(1)</script>")
        .text("points", point.id.clone());
    assert_eq!(app.upload(&set, text).await.status(), 303);
    let (_, page) = app.page(&format!("/sets/{set}")).await;
    assert!(page.contains("<strong>Energy") && page.contains("&lt;script&gt;"), "{page}");
    assert!(!page.contains("<script>alert"), "{page}");
    assert_eq!(app.store().resources(app.owner(), &set).await.unwrap().len(), 2);
}

#[tokio::test]
async fn an_excerpt_and_an_image_are_changed_and_relinked() {
    let app = TestApp::spawn().await;
    let set = app.new_set("Cells").await;
    for content in ["Mitochondria make ATP.", "Ribosomes make proteins."] {
        app.post_form(&format!("/sets/{set}/points"), &[("content", content), ("context", "")]).await;
    }
    let points = app.store().points(app.owner(), &set).await.unwrap();
    let (first, second) = (points[0].id.clone(), points[1].id.clone());
    let text = Form::new()
        .text("title", "Notse")
        .text("body", "Mitochondira make ATP.")
        .text("points", first.clone());
    assert_eq!(app.upload(&set, text).await.status(), 303);
    let image = Form::new()
        .text("title", "A cell")
        .text("points", first.clone())
        .part("file", Part::bytes(PNG.to_vec()).file_name("cell.png"));
    assert_eq!(app.upload(&set, image).await.status(), 303);
    let resources = app.store().resources(app.owner(), &set).await.unwrap();
    let (excerpt, picture) = (resources[0].id.clone(), resources[1].id.clone());

    // The set page leads to the form, which holds what is there now.
    let (_, page) = app.page(&format!("/sets/{set}")).await;
    assert!(page.contains(&format!("href=\"/sets/{set}/resources/{excerpt}/edit\"")), "{page}");
    let (status, form) = app.page(&format!("/sets/{set}/resources/{excerpt}/edit")).await;
    assert_eq!(status, 200);
    assert!(form.contains("Edit excerpt") && form.contains("Mitochondira make ATP."), "{form}");
    assert!(form.contains(&format!("value=\"{first}\" checked")), "its point ticked: {form}");

    // Typos mended, and moved from the first point to the second.
    let mended = Form::new()
        .text("title", "Notes")
        .text("body", "Mitochondria make ATP.")
        .text("points", second.clone());
    let res = app.edit_resource(&app.learner, &set, &excerpt, mended).await;
    assert_eq!(res.status(), 303);
    assert_eq!(res.headers()["location"], format!("/sets/{set}#resource-{excerpt}").as_str());
    let resources = app.store().resources(app.owner(), &set).await.unwrap();
    assert_eq!(
        (resources[0].title.as_str(), resources[0].body.as_str()),
        ("Notes", "Mitochondria make ATP.")
    );
    assert_eq!(resources[0].points, vec![(second.clone(), 1.0)]);

    // An image's caption and licence change; its picture stays, and a text field cannot give it one.
    let caption = Form::new()
        .text("title", "A eukaryotic cell")
        .text("licence", "CC0")
        .text("body", "ignored")
        .text("points", first.clone())
        .text("points", second.clone());
    assert_eq!(app.edit_resource(&app.learner, &set, &picture, caption).await.status(), 303);
    let after = app.store().resources(app.owner(), &set).await.unwrap();
    let image = &after[1];
    assert_eq!(
        (image.title.as_str(), image.licence.as_deref(), image.body.as_str()),
        ("A eukaryotic cell", Some("CC0"), "")
    );
    assert_eq!(image.points.len(), 2);
    assert_eq!(image.url, resources[1].url);

    // An empty title comes back with what was typed, and nothing changes.
    let bad = Form::new().text("title", " ").text("body", "Kept words.").text("points", second.clone());
    let res = app.edit_resource(&app.learner, &set, &excerpt, bad).await;
    assert_eq!(res.status(), 422);
    let html = res.text().await.unwrap();
    assert!(html.contains("Kept words."), "what was typed comes back: {html}");
    assert_eq!(app.store().resources(app.owner(), &set).await.unwrap(), after);

    // Another learner's, or one that is not there: 404, nothing changed.
    let stranger = app.sign_up("stranger").await;
    let (status, _) = app.page_as(&stranger, &format!("/sets/{set}/resources/{excerpt}/edit")).await;
    assert_eq!(status, 404);
    let planted = Form::new().text("title", "Planted").text("body", "B's words");
    assert_eq!(app.edit_resource(&stranger, &set, &excerpt, planted).await.status(), 404);
    let missing = Form::new().text("title", "Gone").text("body", "Gone");
    assert_eq!(app.edit_resource(&app.learner, &set, "no-such-resource", missing).await.status(), 404);
    assert_eq!(app.store().resources(app.owner(), &set).await.unwrap(), after);
}
