//! The hint: what a text-only reader is told about an image window, and how to see more of it.

use super::geometry::tiles;
use super::{ImageBudget, ImageWindow, PixelRegion};
use crate::prose::grouped;

/// The hint: what a text-only reader sees. `shown_path` is the path as the model named it.
///
/// A whole image: `photo.jpg: a 6,000 x 4,000 JPEG image, shown at 0.22 scale (1,313 x 875); 5 x 5 regions
/// of 1,200 x 800 show it at full resolution, the first is region=0,0,1200,800. Pass region=X,Y,W,H (original
/// pixels) to see any part at full resolution.` A region: `shot.png: region 1200,0,1200,800 of the 6,000 x 4,000
/// PNG image, at full resolution (1,200 x 800).`, with its own tiles when it is itself scaled.
pub fn hint(window: &ImageWindow, shown_path: &str, budget: &ImageBudget) -> String {
    let r = window.region;
    let whole = r.x == 0
        && r.y == 0
        && r.width == window.original_width
        && r.height == window.original_height
        && !window.clipped;
    let size = format!(
        "{} x {}",
        grouped(window.original_width.into()),
        grouped(window.original_height.into())
    );
    let format = window.source_format.name();
    let mut text = if whole {
        format!("{shown_path}: a {size} {format} image")
    } else {
        let clipped = if window.clipped {
            " (the asked region was clipped at the image's edge)"
        } else {
            ""
        };
        format!(
            "{shown_path}: region {},{},{},{}{clipped} of the {size} {format} image",
            r.x, r.y, r.width, r.height
        )
    };
    if window.frames > 1 {
        text.push_str(&format!(
            ", the first of {} frames",
            grouped(window.frames.into())
        ));
    }
    if window.orientation != 1 {
        text.push_str(&format!(
            ", EXIF orientation {} applied",
            window.orientation
        ));
    }
    text.push_str(if whole { ", shown at " } else { ", at " });
    let shown = format!(
        "{} x {}",
        grouped(window.width.into()),
        grouped(window.height.into())
    );
    let full = window.width == r.width && window.height == r.height;
    if full {
        text.push_str(&format!("full resolution ({shown})."));
        return text;
    }
    text.push_str(&format!("{} scale ({shown}); ", scale_text(window.scale)));
    text.push_str(&tiles_text(r, budget));
    if whole {
        text.push_str(" Pass region=X,Y,W,H (original pixels) to see any part at full resolution.");
    }
    text
}

/// "5 x 5 regions of 1,200 x 800 show it at full resolution, the first is region=0,0,1200,800."
fn tiles_text(region: PixelRegion, budget: &ImageBudget) -> String {
    let t = tiles(region, budget);
    format!(
        "{} x {} regions of {} x {} show it at full resolution, the first is region={},{},{},{}.",
        grouped(t.columns.into()),
        grouped(t.rows.into()),
        grouped(t.tile_width.into()),
        grouped(t.tile_height.into()),
        region.x,
        region.y,
        t.tile_width,
        t.tile_height,
    )
}

/// A scale with two significant digits past the point at least: 0.22, 0.016.
fn scale_text(scale: f64) -> String {
    if scale <= 0.0 || !scale.is_finite() {
        return "0".to_string();
    }
    let decimals = (1 - scale.log10().floor() as i32).max(2) as usize;
    format!("{scale:.decimals$}")
}
