//! What the upstream client does for tasks: reads 2025-11-25's
//! `notifications/tasks/status`, and carries a server→client request's
//! related-task `_meta` to the client under the client's id for the task.

use rmcp::model::{CustomNotification, JsonObject, TaskStatus};

use super::{Downstream, on_stream_of};

/// 2025-11-25's task status notification.
pub(crate) const EXPERIMENTAL_TASK_STATUS: &str = "notifications/tasks/status";

/// The server's task id, status and parameters of a 2025-11-25
/// `notifications/tasks/status` (the task's fields as `tasks/get` gives them).
pub(super) fn experimental_status(
    notification: CustomNotification,
) -> Option<(String, TaskStatus, JsonObject)> {
    if notification.method != EXPERIMENTAL_TASK_STATUS {
        return None;
    }
    let Some(serde_json::Value::Object(params)) = notification.params else {
        return None;
    };
    let id = params.get("taskId")?.as_str()?.to_string();
    let status = serde_json::from_value(params.get("status")?.clone()).ok()?;
    Some((id, status, params))
}

/// The extensions of a request forwarded to the client on its call's
/// stream: the call's origin, and the task the request belongs to (2025-11-25's
/// related-task `_meta`) when it is the task of that call, under the client's
/// id (a server's task id never reaches a client; nothing else of the
/// server's `_meta`, such as its progress token, means anything there).
pub(super) fn forwarded_extensions(
    downstream: &Downstream,
    from: &rmcp::model::RequestMetaObject,
) -> rmcp::model::Extensions {
    const RELATED_TASK: &str = "io.modelcontextprotocol/related-task";
    let mut extensions = on_stream_of(downstream);
    let named = from
        .get(RELATED_TASK)
        .and_then(|task| task.get("taskId"))
        .and_then(|id| id.as_str());
    if let (Some(named), Some((upstream_id, id))) = (named, &downstream.related_task)
        && named == upstream_id
    {
        let mut meta = rmcp::model::JsonObject::new();
        meta.insert(RELATED_TASK.into(), serde_json::json!({"taskId": id}));
        extensions.insert(rmcp::model::RequestMetaObject::from(meta));
    }
    extensions
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;
    use serde_json::json;

    #[test]
    fn a_2025_status_notification_is_read_and_anything_else_is_not() {
        let params = json!({"taskId": "up-1", "status": "completed", "ttl": 60000});
        let read = experimental_status(CustomNotification::new(
            EXPERIMENTAL_TASK_STATUS,
            Some(params.clone()),
        ));
        let (id, status, kept) = read.unwrap();
        assert_eq!((id.as_str(), status), ("up-1", TaskStatus::Completed));
        assert_eq!(serde_json::Value::Object(kept), params);
        for (method, params) in [
            (
                "notifications/other",
                json!({"taskId": "up-1", "status": "completed"}),
            ),
            (EXPERIMENTAL_TASK_STATUS, json!({"status": "completed"})),
            (
                EXPERIMENTAL_TASK_STATUS,
                json!({"taskId": "up-1", "status": "asleep"}),
            ),
            (EXPERIMENTAL_TASK_STATUS, json!(["up-1"])),
        ] {
            let notification = CustomNotification::new(method, Some(params.clone()));
            assert!(
                experimental_status(notification).is_none(),
                "{method} {params}"
            );
        }
    }
}
