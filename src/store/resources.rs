//! A set's resources: text excerpts and images (uploaded ones stored here, as bytes), each
//! optionally linked to points; and which of them a session has shown.

use sqlx::AnyConnection;
use warren_app::api::ResourceKind;
use warren_app::learner::LearnerId;

use super::points::{owns_set, touch_set};
use super::{Reads, Store, StoreError, new_id, now_ms};

#[derive(Clone, Debug, Default, PartialEq)]
pub struct NewResource {
    pub kind: ResourceKind,
    pub title: String,
    pub body: String,
    /// Where an image is served from; set for uploaded images when they are stored.
    pub url: Option<String>,
    pub mime_type: Option<String>,
    pub licence: Option<String>,
    /// An uploaded image's bytes (checked by the caller).
    pub image: Option<Vec<u8>>,
    /// Indexes into `NewSet::points`, with relevance.
    pub points: Vec<(usize, f64)>,
}

/// What the learner can change of a resource: its words (an image keeps its bytes and kind).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ResourceEdit {
    pub title: String,
    /// The excerpt, for text (ignored for an image).
    pub body: String,
    pub licence: Option<String>,
}

#[derive(Clone, Debug, PartialEq, sqlx::FromRow)]
pub struct Resource {
    pub id: String,
    #[sqlx(try_from = "String")]
    pub kind: ResourceKind,
    pub title: String,
    pub body: String,
    pub url: Option<String>,
    pub mime_type: Option<String>,
    pub licence: Option<String>,
    /// Points this resource supports, with relevance 0..1.
    #[sqlx(skip)]
    pub points: Vec<(String, f64)>,
}

/// The media types an uploaded image may have, recognised by its bytes.
const IMAGE_TYPES: [&str; 4] = ["image/png", "image/jpeg", "image/webp", "image/gif"];

/// An image's media type from its first bytes, if it is one Warren takes (its name and what
/// the browser claims count for nothing).
pub fn image_type(bytes: &[u8]) -> Option<&'static str> {
    infer::get(bytes)
        .map(|kind| kind.mime_type())
        .and_then(|mime| IMAGE_TYPES.iter().copied().find(|t| *t == mime))
}

/// Where an uploaded image is served: only to its learner (see `web::media`).
pub fn media_url(resource_id: &str) -> String {
    format!("/media/{resource_id}")
}

/// Inserts a resource, its image bytes and its links to points inside the caller's
/// transaction; returns its id.
pub(super) async fn insert_resource(
    conn: &mut AnyConnection,
    learner: &LearnerId,
    set_id: &str,
    resource: &NewResource,
    links: &[(String, f64)],
) -> Result<String, sqlx::Error> {
    let id = new_id();
    let url = match &resource.image {
        Some(_) => Some(media_url(&id)),
        None => resource.url.clone(),
    };
    sqlx::query(
        "INSERT INTO resources (id, set_id, owner_id, kind, title, body, url, mime_type, licence, created_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)",
    )
    .bind(&id)
    .bind(set_id)
    .bind(learner)
    .bind(resource.kind.as_str())
    .bind(&resource.title)
    .bind(&resource.body)
    .bind(&url)
    .bind(&resource.mime_type)
    .bind(&resource.licence)
    .bind(now_ms())
    .execute(&mut *conn)
    .await?;
    if let Some(bytes) = &resource.image {
        sqlx::query("INSERT INTO resource_images (resource_id, owner_id, bytes) VALUES ($1, $2, $3)")
            .bind(&id)
            .bind(learner)
            .bind(bytes.as_slice())
            .execute(&mut *conn)
            .await?;
    }
    for (point_id, relevance) in links {
        sqlx::query(
            "INSERT INTO point_resources (point_id, resource_id, owner_id, relevance)
             SELECT id, $2, $3, $4 FROM recall_points WHERE id = $1 AND owner_id = $3 AND set_id = $5",
        )
        .bind(point_id)
        .bind(&id)
        .bind(learner)
        .bind(*relevance)
        .bind(set_id)
        .execute(&mut *conn)
        .await?;
    }
    Ok(id)
}

impl Store {
    pub async fn resources(&self, learner: &LearnerId, set_id: &str) -> Result<Vec<Resource>, StoreError> {
        const RESOURCES: &str = "SELECT id, kind, title, body, url, mime_type, licence FROM resources
            WHERE set_id = $1 AND owner_id = $2 ORDER BY created_at, id";
        let mut resources: Vec<Resource> = self.set_rows(RESOURCES, learner, set_id).await?;
        const LINKS: &str = "SELECT pr.resource_id, pr.point_id, pr.relevance FROM point_resources pr
            JOIN resources r ON r.id = pr.resource_id
            WHERE r.set_id = $1 AND r.owner_id = $2 AND pr.owner_id = $2";
        let links: Vec<(String, String, f64)> = self.set_rows(LINKS, learner, set_id).await?;
        for (resource_id, point_id, relevance) in links {
            if let Some(r) = resources.iter_mut().find(|r| r.id == resource_id) {
                r.points.push((point_id, relevance));
            }
        }
        Ok(resources)
    }

    /// Adds a resource to a set, linked to the given points of that set (others are ignored);
    /// `None` when the set is not the learner's.
    pub async fn add_resource(
        &self,
        learner: &LearnerId,
        set_id: &str,
        resource: &NewResource,
        point_ids: &[String],
    ) -> Result<Option<String>, StoreError> {
        let mut tx = self.write_transaction().await?;
        if !owns_set(&mut tx, learner, set_id).await? {
            return Ok(None);
        }
        let links: Vec<(String, f64)> = point_ids.iter().map(|id| (id.clone(), 1.0)).collect();
        let id = insert_resource(&mut tx, learner, set_id, resource, &links).await?;
        touch_set(&mut tx, learner, set_id).await?;
        tx.commit().await?;
        Ok(Some(id))
    }

    /// Changes a resource of the learner's set `set_id` and links it to exactly `point_ids` of
    /// that set (a link kept keeps its relevance); false when the resource is not there.
    pub async fn update_resource(
        &self,
        learner: &LearnerId,
        set_id: &str,
        resource_id: &str,
        edit: &ResourceEdit,
        point_ids: &[String],
    ) -> Result<bool, StoreError> {
        let mut tx = self.write_transaction().await?;
        let changed = sqlx::query(
            "UPDATE resources SET title = $1, body = CASE WHEN kind = $7 THEN $2 ELSE body END, licence = $3
             WHERE id = $4 AND set_id = $5 AND owner_id = $6",
        )
        .bind(&edit.title)
        .bind(&edit.body)
        .bind(&edit.licence)
        .bind(resource_id)
        .bind(set_id)
        .bind(learner)
        .bind(ResourceKind::Text.as_str())
        .execute(&mut *tx)
        .await?
        .rows_affected();
        if changed != 1 {
            return Ok(false);
        }
        let linked: Vec<String> = sqlx::query_scalar(
            "SELECT point_id FROM point_resources WHERE resource_id = $1 AND owner_id = $2",
        )
        .bind(resource_id)
        .bind(learner)
        .fetch_all(&mut *tx)
        .await?;
        for gone in linked.iter().filter(|id| !point_ids.contains(id)) {
            sqlx::query(
                "DELETE FROM point_resources WHERE point_id = $1 AND resource_id = $2 AND owner_id = $3",
            )
            .bind(gone)
            .bind(resource_id)
            .bind(learner)
            .execute(&mut *tx)
            .await?;
        }
        for added in point_ids.iter().filter(|id| !linked.contains(id)) {
            // Only a point of the same set; another id is read past.
            sqlx::query(
                "INSERT INTO point_resources (point_id, resource_id, owner_id, relevance)
                 SELECT id, $2, $3, 1 FROM recall_points WHERE id = $1 AND owner_id = $3 AND set_id = $4
                 ON CONFLICT DO NOTHING",
            )
            .bind(added)
            .bind(resource_id)
            .bind(learner)
            .bind(set_id)
            .execute(&mut *tx)
            .await?;
        }
        touch_set(&mut tx, learner, set_id).await?;
        tx.commit().await?;
        Ok(true)
    }

    /// Deletes a resource and its image; false when it is not the learner's.
    pub async fn delete_resource(&self, learner: &LearnerId, resource_id: &str) -> Result<bool, StoreError> {
        let statement = sqlx::query("DELETE FROM resources WHERE id = $1 AND owner_id = $2");
        Ok(self.write_one(statement.bind(resource_id).bind(learner)).await? == 1)
    }

    /// An uploaded image and its media type, if it is the learner's.
    pub async fn resource_image(
        &self,
        learner: &LearnerId,
        resource_id: &str,
    ) -> Result<Option<(String, Vec<u8>)>, StoreError> {
        let row: Option<(Option<String>, Vec<u8>)> = sqlx::query_as(
            "SELECT r.mime_type, i.bytes FROM resource_images i JOIN resources r ON r.id = i.resource_id
             WHERE i.resource_id = $1 AND i.owner_id = $2 AND r.owner_id = $2",
        )
        .bind(resource_id)
        .bind(learner)
        .optional(self.read())
        .await?;
        Ok(row.map(|(mime, bytes)| (mime.unwrap_or_else(|| "application/octet-stream".into()), bytes)))
    }

    /// Notes that a session showed a resource; false when it had already.
    pub async fn record_shown(
        &self,
        learner: &LearnerId,
        session_id: &str,
        resource_id: &str,
    ) -> Result<bool, StoreError> {
        let statement = sqlx::query(
            "INSERT INTO shown_resources (session_id, resource_id, owner_id, shown_at)
             SELECT $1, id, $3, $4 FROM resources WHERE id = $2 AND owner_id = $3
             ON CONFLICT (session_id, resource_id) DO NOTHING",
        )
        .bind(session_id)
        .bind(resource_id)
        .bind(learner)
        .bind(now_ms());
        Ok(self.write_one(statement).await? == 1)
    }

    /// The resources a session has shown, in the order it showed them.
    pub async fn shown_resources(
        &self,
        learner: &LearnerId,
        session_id: &str,
    ) -> Result<Vec<String>, StoreError> {
        Ok(self.shown_resources_at(learner, session_id).await?.into_iter().map(|(id, _)| id).collect())
    }

    /// [`Store::shown_resources`] with when each was shown.
    pub async fn shown_resources_at(
        &self,
        learner: &LearnerId,
        session_id: &str,
    ) -> Result<Vec<(String, i64)>, StoreError> {
        Ok(sqlx::query_as(
            "SELECT resource_id, shown_at FROM shown_resources WHERE session_id = $1 AND owner_id = $2
             ORDER BY shown_at, resource_id",
        )
        .bind(session_id)
        .bind(learner)
        .all(self.read())
        .await?)
    }
}
