//! The geometry of a read: the scale a budget allows, the tiles that cover a region at full resolution, the
//! EXIF orientation's mapping between stored and shown pixels, and the plan a decoder follows.

use super::scale::Raster;
use super::{ImageBudget, ImageError, ImageErrorKind, PixelRegion};

/// What the caller asked: a region (None: the whole image) under a budget.
pub(super) struct Request<'a> {
    pub region: Option<PixelRegion>,
    pub budget: &'a ImageBudget,
}

/// A rectangle in stored pixels (before orientation), half-open: `x..x + width`, `y..y + height`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Rect {
    pub x: u32,
    pub y: u32,
    pub width: u32,
    pub height: u32,
}

/// What a decoder reads and makes: the stored rectangle to read and the stored size to scale it to.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct Plan {
    /// The region shown, in oriented pixels, clipped.
    pub region: PixelRegion,
    pub clipped: bool,
    pub orientation: u8,
    pub oriented_width: u32,
    pub oriented_height: u32,
    /// The region in stored pixels.
    pub source: Rect,
    /// The output's size in stored orientation (swapped from the shown size for orientations 5 to 8).
    pub stored_out_width: u32,
    pub stored_out_height: u32,
    /// The output's size as shown.
    pub out_width: u32,
    pub out_height: u32,
}

impl Plan {
    /// The output shows the region pixel for pixel.
    pub fn full_resolution(&self) -> bool {
        self.out_width == self.region.width && self.out_height == self.region.height
    }
}

/// Whether an orientation swaps width and height (5 to 8: a transpose or a quarter turn).
fn swaps(orientation: u8) -> bool {
    (5..=8).contains(&orientation)
}

/// The plan for an image stored `width` x `height` with EXIF `orientation`, under `request`.
pub(super) fn plan(
    width: u32,
    height: u32,
    orientation: u8,
    request: &Request<'_>,
) -> Result<Plan, ImageError> {
    let orientation = if (1..=8).contains(&orientation) {
        orientation
    } else {
        1
    };
    let (ow, oh) = if swaps(orientation) {
        (height, width)
    } else {
        (width, height)
    };
    let (region, clipped) = clip(request.region, ow, oh)?;
    let (out_width, out_height) = fit_size(region.width, region.height, request.budget);
    let source = to_stored(region, orientation, width, height);
    let (stored_out_width, stored_out_height) = if swaps(orientation) {
        (out_height, out_width)
    } else {
        (out_width, out_height)
    };
    Ok(Plan {
        region,
        clipped,
        orientation,
        oriented_width: ow,
        oriented_height: oh,
        source,
        stored_out_width,
        stored_out_height,
        out_width,
        out_height,
    })
}

/// The asked region clipped to a `width` x `height` image, and whether it was clipped.
fn clip(
    region: Option<PixelRegion>,
    width: u32,
    height: u32,
) -> Result<(PixelRegion, bool), ImageError> {
    let whole = PixelRegion {
        x: 0,
        y: 0,
        width,
        height,
    };
    let Some(r) = region else {
        return Ok((whole, false));
    };
    let size = format!(
        "the image is {} x {} pixels",
        crate::prose::grouped(width.into()),
        crate::prose::grouped(height.into())
    );
    if r.width == 0 || r.height == 0 {
        return Err(ImageError::new(
            ImageErrorKind::InvalidRegion,
            format!("The region {},{},{},{} is empty: give a width and a height of at least 1 ({size}).", r.x, r.y, r.width, r.height),
        ));
    }
    if r.x >= width || r.y >= height {
        return Err(ImageError::new(
            ImageErrorKind::InvalidRegion,
            format!("The region {},{},{},{} starts outside the image: {size}, so x must be below {width} and y below {height}.", r.x, r.y, r.width, r.height),
        ));
    }
    let w = r.width.min(width - r.x);
    let h = r.height.min(height - r.y);
    let clipped = w != r.width || h != r.height;
    Ok((
        PixelRegion {
            x: r.x,
            y: r.y,
            width: w,
            height: h,
        },
        clipped,
    ))
}

/// The largest scale at which a `width` x `height` region fits `budget`'s side and pixel caps (at most 1).
pub(super) fn fit_scale(width: u32, height: u32, budget: &ImageBudget) -> f64 {
    let longest = f64::from(width.max(height).max(1));
    let pixels = f64::from(width.max(1)) * f64::from(height.max(1));
    let side = f64::from(budget.max_side_px.max(1)) / longest;
    let area = (budget.max_pixels.max(1) as f64 / pixels).sqrt();
    side.min(area).min(1.0)
}

/// The output size of a `width` x `height` region under `budget`: floor(side x s), each at least 1.
pub(super) fn fit_size(width: u32, height: u32, budget: &ImageBudget) -> (u32, u32) {
    let s = fit_scale(width, height, budget);
    if s >= 1.0 {
        return (width, height);
    }
    // A hair above the exact product, so that 1,568 / 6,000 x 6,000 is 1,568 and not 1,567.
    let side = |n: u32| ((f64::from(n) * s + 1e-9).floor() as u32).clamp(1, n);
    let (mut w, mut h) = (side(width), side(height));
    while u64::from(w) * u64::from(h) > budget.max_pixels && (w > 1 || h > 1) {
        if w >= h {
            w -= 1
        } else {
            h -= 1
        }
    }
    (w, h)
}

/// The scale an output of `width` x `height` shows `region` at: the smaller of the two ratios.
pub(super) fn shown_scale(width: u32, height: u32, region: PixelRegion) -> f64 {
    let sx = f64::from(width) / f64::from(region.width.max(1));
    let sy = f64::from(height) / f64::from(region.height.max(1));
    sx.min(sy)
}

/// The grid of full-resolution regions that covers `region` under `budget`: n x n tiles of the region's own
/// shape, n the smallest for which a tile fits at scale 1 (columns = min(n, width), rows = min(n, height),
/// tile = ceil(width / columns) x ceil(height / rows)).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Tiles {
    /// Tiles across.
    pub columns: u32,
    /// Tiles down.
    pub rows: u32,
    /// A tile's width in original pixels (the last column may be narrower).
    pub tile_width: u32,
    /// A tile's height in original pixels (the last row may be shorter).
    pub tile_height: u32,
}

/// The tiles that cover `region` at full resolution under `budget` (see [`Tiles`]); 1 x 1 when it fits.
pub fn tiles(region: PixelRegion, budget: &ImageBudget) -> Tiles {
    let (w, h) = (region.width.max(1), region.height.max(1));
    let grid = |n: u32| {
        let (columns, rows) = (n.min(w), n.min(h));
        Tiles {
            columns,
            rows,
            tile_width: w.div_ceil(columns),
            tile_height: h.div_ceil(rows),
        }
    };
    let fits = |t: &Tiles| fit_scale(t.tile_width, t.tile_height, budget) >= 1.0;
    // The fit is monotonic in n: find the smallest n by doubling, then bisecting.
    let mut high = 1u32;
    while !fits(&grid(high)) && high < w.max(h) {
        high = high.saturating_mul(2).min(w.max(h));
    }
    let mut low = high / 2;
    while low + 1 < high {
        let mid = low + (high - low) / 2;
        if fits(&grid(mid)) {
            high = mid
        } else {
            low = mid
        }
    }
    grid(high)
}

/// The stored rectangle under a region of the shown (oriented) image.
fn to_stored(region: PixelRegion, orientation: u8, width: u32, height: u32) -> Rect {
    let (x0, y0) = stored_point(region.x, region.y, orientation, width, height);
    let (x1, y1) = stored_point(
        region.x + region.width - 1,
        region.y + region.height - 1,
        orientation,
        width,
        height,
    );
    Rect {
        x: x0.min(x1),
        y: y0.min(y1),
        width: x0.abs_diff(x1) + 1,
        height: y0.abs_diff(y1) + 1,
    }
}

/// The stored pixel shown at `(x, y)` of an image stored `width` x `height` with `orientation`.
fn stored_point(x: u32, y: u32, orientation: u8, width: u32, height: u32) -> (u32, u32) {
    let (w1, h1) = (width.saturating_sub(1), height.saturating_sub(1));
    match orientation {
        2 => (w1 - x.min(w1), y),
        3 => (w1 - x.min(w1), h1 - y.min(h1)),
        4 => (x, h1 - y.min(h1)),
        5 => (y, x),
        6 => (y, h1 - x.min(h1)),
        7 => (w1 - y.min(w1), h1 - x.min(h1)),
        8 => (w1 - y.min(w1), x),
        _ => (x, y),
    }
}

/// The raster as shown: `orientation` applied (1 returns it unchanged).
pub(super) fn orient(raster: Raster, orientation: u8) -> Raster {
    if !(2..=8).contains(&orientation) {
        return raster;
    }
    let (w, h) = (raster.width, raster.height);
    let (ow, oh) = if swaps(orientation) { (h, w) } else { (w, h) };
    let mut pixels = vec![0u8; raster.pixels.len()];
    for y in 0..oh {
        for x in 0..ow {
            let (sx, sy) = stored_point(x, y, orientation, w, h);
            let from = (sy as usize * w as usize + sx as usize) * 4;
            let to = (y as usize * ow as usize + x as usize) * 4;
            if let (Some(src), Some(dst)) = (
                raster.pixels.get(from..from + 4),
                pixels.get_mut(to..to + 4),
            ) {
                dst.copy_from_slice(src);
            }
        }
    }
    Raster {
        width: ow,
        height: oh,
        pixels,
    }
}
