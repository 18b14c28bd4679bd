//! Who is asking. Until accounts exist, every request comes from the local learner.

use std::convert::Infallible;

use axum::extract::FromRequestParts;
use axum::http::request::Parts;

use crate::store::LOCAL_USER_ID;

#[derive(Clone, Debug)]
pub struct Viewer {
    pub user_id: String,
}

impl<S: Send + Sync> FromRequestParts<S> for Viewer {
    type Rejection = Infallible;

    async fn from_request_parts(_parts: &mut Parts, _state: &S) -> Result<Self, Self::Rejection> {
        Ok(Viewer { user_id: LOCAL_USER_ID.to_string() })
    }
}
