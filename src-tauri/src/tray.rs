//! The tray icon and its menu, driven by the hub's snapshot.
//!
//! `tray_model` decides what to show; this module only builds the Tauri menu
//! and icon from it, and handles clicks. A follower task gets every new
//! snapshot and every change of the calls waiting for approval; the menu is
//! rebuilt only when its model changed and the icon is swapped only when its
//! variant changed, so the tray never flickers.

use std::sync::Mutex;

use switchboard_api::RefreshTrigger;
use switchboard_core::HubHandle;
use tauri::image::Image;
use tauri::menu::{CheckMenuItem, Menu, MenuEvent, MenuItem, PredefinedMenuItem};
use tauri::tray::TrayIconBuilder;
use tauri::{AppHandle, Manager, Runtime};
use tauri_plugin_autostart::ManagerExt as _;
use tauri_plugin_clipboard_manager::ClipboardExt as _;

use crate::AppState;
use crate::tray_model::{
    self, ID_AUTOSTART, ID_ENDPOINT, ID_HELD, ID_OPEN, ID_PENDING, ID_QUIT, ID_REFRESH_ALL,
    ID_UNSANDBOXED, IconVariant, MenuModel,
};

const TRAY_ID: &str = "switchboard";

/// What the tray shows now, to tell whether a new snapshot changes anything.
#[derive(Default)]
struct Shown {
    model: Option<MenuModel>,
    variant: Option<IconVariant>,
    tooltip: Option<String>,
}

/// The tray icon and what it shows (managed state).
pub struct Tray {
    shown: Mutex<Shown>,
}

fn icon_image(variant: IconVariant) -> tauri::Result<Image<'static>> {
    let bytes: &'static [u8] = match variant {
        IconVariant::Healthy => include_bytes!("../../icons/tray-healthy.png"),
        IconVariant::Degraded => include_bytes!("../../icons/tray-degraded.png"),
        IconVariant::Down => include_bytes!("../../icons/tray-down.png"),
        IconVariant::AllDisabled => include_bytes!("../../icons/tray-disabled.png"),
    };
    Image::from_bytes(bytes)
}

/// Creates the tray icon (with an empty menu until the first [`refresh`]).
pub fn create<R: Runtime>(app: &AppHandle<R>) -> tauri::Result<()> {
    let menu = Menu::new(app)?;
    TrayIconBuilder::with_id(TRAY_ID)
        .icon(icon_image(IconVariant::AllDisabled)?)
        .tooltip("Switchboard")
        .menu(&menu)
        .show_menu_on_left_click(true)
        .on_menu_event(on_menu_event)
        .build(app)?;
    app.manage(Tray {
        shown: Mutex::new(Shown::default()),
    });
    refresh(app);
    Ok(())
}

/// Recomputes the model from the current snapshot and applies what changed.
pub fn refresh<R: Runtime>(app: &AppHandle<R>) {
    let autostart = app.autolaunch().is_enabled().unwrap_or(false);
    let state = app.state::<AppState>();
    let (model, variant, tooltip) = match (&state.hub, &state.hub_error) {
        (Some(hub), _) => {
            let snapshot = hub.handle.snapshot();
            (
                tray_model::menu_model(&snapshot, hub.handle.pending().len(), autostart),
                tray_model::icon_variant(&snapshot),
                tray_model::tooltip(&snapshot),
            )
        }
        (None, error) => {
            let error = error.as_deref().unwrap_or("unknown error");
            (
                tray_model::failed_menu_model(error, autostart),
                IconVariant::Down,
                format!("Switchboard — hub not running: {error}"),
            )
        }
    };
    if let Err(err) = apply(app, model, variant, tooltip) {
        tracing::warn!(error = %err, "cannot update the tray");
    }
}

/// Forgets what is shown, so the next [`refresh`] rebuilds everything (used
/// when a click's action failed and a check mark must flip back).
fn invalidate<R: Runtime>(app: &AppHandle<R>) {
    if let Some(tray) = app.try_state::<Tray>()
        && let Ok(mut shown) = tray.shown.lock()
    {
        *shown = Shown::default();
    }
}

fn apply<R: Runtime>(
    app: &AppHandle<R>,
    model: MenuModel,
    variant: IconVariant,
    tooltip: String,
) -> tauri::Result<()> {
    let (Some(tray), Some(icon)) = (app.try_state::<Tray>(), app.tray_by_id(TRAY_ID)) else {
        return Ok(());
    };
    let Ok(mut shown) = tray.shown.lock() else {
        return Ok(());
    };
    if shown.model.as_ref() != Some(&model) {
        icon.set_menu(Some(build_menu(app, &model)?))?;
        shown.model = Some(model);
    }
    if shown.variant != Some(variant) {
        icon.set_icon(Some(icon_image(variant)?))?;
        shown.variant = Some(variant);
    }
    if shown.tooltip.as_ref() != Some(&tooltip) {
        icon.set_tooltip(Some(&tooltip))?;
        shown.tooltip = Some(tooltip);
    }
    Ok(())
}

fn build_menu<R: Runtime>(app: &AppHandle<R>, model: &MenuModel) -> tauri::Result<Menu<R>> {
    let menu = Menu::new(app)?;
    menu.append(&MenuItem::with_id(
        app,
        ID_ENDPOINT,
        &model.endpoint_label,
        model.endpoint_enabled,
        None::<&str>,
    )?)?;
    if let Some(problem) = &model.config_problem {
        menu.append(&MenuItem::with_id(
            app,
            "config-problem",
            problem,
            false,
            None::<&str>,
        )?)?;
    }
    if let Some(pending) = &model.pending_calls {
        menu.append(&MenuItem::with_id(
            app,
            ID_PENDING,
            pending,
            true,
            None::<&str>,
        )?)?;
    }
    if let Some(held) = &model.held_tools {
        menu.append(&MenuItem::with_id(app, ID_HELD, held, true, None::<&str>)?)?;
    }
    if let Some(unsandboxed) = &model.unsandboxed {
        menu.append(&MenuItem::with_id(
            app,
            ID_UNSANDBOXED,
            unsandboxed,
            true,
            None::<&str>,
        )?)?;
    }
    menu.append(&PredefinedMenuItem::separator(app)?)?;
    if let Some(empty) = &model.empty_label {
        menu.append(&MenuItem::with_id(
            app,
            "no-servers",
            empty,
            false,
            None::<&str>,
        )?)?;
    }
    for server in &model.servers {
        menu.append(&CheckMenuItem::with_id(
            app,
            &server.item_id,
            &server.label,
            true,
            server.checked,
            None::<&str>,
        )?)?;
    }
    if !model.servers.is_empty() || model.empty_label.is_some() {
        menu.append(&PredefinedMenuItem::separator(app)?)?;
    }
    menu.append(&MenuItem::with_id(
        app,
        ID_REFRESH_ALL,
        "Refresh all",
        model.endpoint_enabled,
        None::<&str>,
    )?)?;
    menu.append(&MenuItem::with_id(
        app,
        ID_OPEN,
        "Open dashboard",
        true,
        None::<&str>,
    )?)?;
    menu.append(&CheckMenuItem::with_id(
        app,
        ID_AUTOSTART,
        "Start at login",
        true,
        model.autostart,
        None::<&str>,
    )?)?;
    menu.append(&PredefinedMenuItem::separator(app)?)?;
    menu.append(&MenuItem::with_id(
        app,
        ID_QUIT,
        "Quit",
        true,
        None::<&str>,
    )?)?;
    Ok(menu)
}

fn on_menu_event<R: Runtime>(app: &AppHandle<R>, event: MenuEvent) {
    let id = event.id().as_ref();
    let state = app.state::<AppState>();
    let hub = state.hub.as_ref().map(|h| h.handle.clone());
    match id {
        ID_ENDPOINT => {
            if let Some(hub) = hub
                && let Err(err) = app.clipboard().write_text(hub.endpoint().to_string())
            {
                tracing::warn!(error = %err, "cannot copy the endpoint");
            }
        }
        ID_REFRESH_ALL => {
            if let Some(hub) = hub {
                tauri::async_runtime::spawn(async move {
                    for (id, result) in hub.refresh_all(RefreshTrigger::Manual).await {
                        if let Err(err) = result {
                            tracing::warn!(server = %id, error = %err, "refresh failed");
                        }
                    }
                });
            }
        }
        ID_OPEN | ID_HELD | ID_UNSANDBOXED | ID_PENDING => crate::show_dashboard(app),
        ID_AUTOSTART => {
            let autolaunch = app.autolaunch();
            let result = if autolaunch.is_enabled().unwrap_or(false) {
                autolaunch.disable()
            } else {
                autolaunch.enable()
            };
            if let Err(err) = result {
                tracing::warn!(error = %err, "cannot change start at login");
                invalidate(app);
            }
            refresh(app);
        }
        ID_QUIT => app.exit(0),
        other => {
            let (Some(server), Some(hub)) = (tray_model::server_of_item(other), hub) else {
                return;
            };
            let enabled = hub
                .snapshot()
                .servers
                .iter()
                .find(|s| s.id == server)
                .map(|s| s.enabled);
            let Some(enabled) = enabled else { return };
            let server = server.to_string();
            let app = app.clone();
            tauri::async_runtime::spawn(async move {
                if let Err(err) = hub.set_enabled(&server, !enabled).await {
                    tracing::warn!(%server, error = %err, "cannot switch the server");
                    // The check mark flipped on click; put it back.
                    invalidate(&app);
                    refresh(&app);
                }
            });
        }
    }
}

/// Keeps the tray in step with the hub: one refresh per published snapshot
/// and per change of the calls waiting for approval.
pub fn follow<R: Runtime>(app: AppHandle<R>, hub: HubHandle) {
    tauri::async_runtime::spawn(async move {
        let mut snapshots = hub.subscribe();
        let mut pending = hub.pending().watch();
        loop {
            snapshots.borrow_and_update();
            pending.borrow_and_update();
            refresh(&app);
            let changed = tokio::select! {
                changed = snapshots.changed() => changed,
                changed = pending.changed() => changed,
            };
            if changed.is_err() {
                break;
            }
        }
    });
}
