//! The streaming box scaler: rows of RGBA pixels go in one at a time, the area average of each output pixel's
//! box comes out. It keeps one accumulator row (4 x u64 a column of the output) and the output itself, never
//! the input, so memory follows the output.

use super::geometry::Rect;

/// An RGBA image, 8 bits a channel, rows top to bottom.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct Raster {
    pub width: u32,
    pub height: u32,
    /// width x height x 4 bytes.
    pub pixels: Vec<u8>,
}

impl Raster {
    /// Whether any pixel is not fully opaque.
    pub fn has_alpha(&self) -> bool {
        self.pixels.chunks_exact(4).any(|p| p[3] != 255)
    }
}

/// Scales the rectangle `rect` of rows pushed in order (each the input's full width, RGBA) to
/// `out_width` x `out_height` (at most the rectangle's size) by area averaging, alpha weighted.
pub(super) struct BoxScaler {
    rect: Rect,
    out_width: u32,
    out_height: u32,
    /// For each output column, the first input column past its box (relative to `rect.x`).
    column_ends: Vec<u32>,
    /// Per output column: sums of r x a, g x a, b x a and a.
    sums: Vec<[u64; 4]>,
    /// Input rows seen so far (all of them, inside the rectangle or not).
    row: u32,
    /// The output row being accumulated and the first input row (relative to `rect.y`) past its box.
    out_row: u32,
    row_end: u32,
    out: Vec<u8>,
}

/// The end of box `i` of `n` boxes over `len` units: boxes partition `0..len`, each at least 1 long.
fn box_end(i: u32, n: u32, len: u32) -> u32 {
    ((u64::from(i) + 1) * u64::from(len) / u64::from(n.max(1))) as u32
}

impl BoxScaler {
    /// A scaler of `rect` to `out_width` x `out_height`, each clamped to `1..=` the rectangle's side.
    pub fn new(rect: Rect, out_width: u32, out_height: u32) -> Self {
        let out_width = out_width.clamp(1, rect.width.max(1));
        let out_height = out_height.clamp(1, rect.height.max(1));
        let column_ends = (0..out_width)
            .map(|i| box_end(i, out_width, rect.width))
            .collect();
        BoxScaler {
            rect,
            out_width,
            out_height,
            column_ends,
            sums: vec![[0; 4]; out_width as usize],
            row: 0,
            out_row: 0,
            row_end: box_end(0, out_height, rect.height),
            out: Vec::with_capacity(out_width as usize * out_height as usize * 4),
        }
    }

    /// Bytes the scaler holds for its accumulators (the memory bound a test checks).
    #[cfg(test)]
    pub fn accumulator_bytes(&self) -> usize {
        self.sums.len() * std::mem::size_of::<[u64; 4]>() + self.column_ends.len() * 4
    }

    /// Whether every row the output needs has been pushed (a decoder may stop reading).
    pub fn done(&self) -> bool {
        self.out_row >= self.out_height
    }

    /// Input rows pushed so far.
    pub fn rows_seen(&self) -> u32 {
        self.row
    }

    /// Takes the next input row (RGBA, the input's full width; a shorter row counts as transparent past its end).
    pub fn push(&mut self, rgba: &[u8]) {
        let y = self.row;
        self.row += 1;
        if self.done() || y < self.rect.y || y >= self.rect.y + self.rect.height {
            return;
        }
        let start = self.rect.x as usize * 4;
        let end = start + self.rect.width as usize * 4;
        let inside = rgba.get(start..end.min(rgba.len())).unwrap_or(&[]);
        if self.out_width == self.rect.width && self.out_height == self.rect.height {
            // Full resolution: the pixels exactly, transparent colours included.
            self.out.extend_from_slice(inside);
            self.out.resize(
                self.out.len() + (self.rect.width as usize * 4 - inside.len()),
                0,
            );
            self.out_row += 1;
            return;
        }
        self.accumulate(inside);
        if y - self.rect.y + 1 >= self.row_end {
            self.emit_row();
        }
    }

    fn accumulate(&mut self, inside: &[u8]) {
        let mut pixels = inside.chunks_exact(4);
        let mut x = 0u32;
        for (sum, &end) in self.sums.iter_mut().zip(&self.column_ends) {
            while x < end {
                if let Some(p) = pixels.next() {
                    let a = u64::from(p[3]);
                    sum[0] += u64::from(p[0]) * a;
                    sum[1] += u64::from(p[1]) * a;
                    sum[2] += u64::from(p[2]) * a;
                    sum[3] += a;
                }
                x += 1;
            }
        }
    }

    fn emit_row(&mut self) {
        let row_start = if self.out_row == 0 {
            0
        } else {
            box_end(self.out_row - 1, self.out_height, self.rect.height)
        };
        let rows = u64::from(self.row_end - row_start);
        let mut column_start = 0u32;
        for (sum, &end) in self.sums.iter_mut().zip(&self.column_ends) {
            let count = rows * u64::from(end - column_start);
            column_start = end;
            let a = sum[3];
            let colour = |c: u64| (c + a / 2).checked_div(a).unwrap_or(0) as u8;
            self.out.extend_from_slice(&[
                colour(sum[0]),
                colour(sum[1]),
                colour(sum[2]),
                ((a + count / 2) / count.max(1)) as u8,
            ]);
            *sum = [0; 4];
        }
        self.out_row += 1;
        self.row_end = box_end(self.out_row, self.out_height, self.rect.height);
    }

    /// The output, once every row of the rectangle has been pushed; None when rows are missing.
    pub fn finish(self) -> Option<Raster> {
        if !self.done() {
            return None;
        }
        Some(Raster {
            width: self.out_width,
            height: self.out_height,
            pixels: self.out,
        })
    }
}

/// Scales a whole raster to `width` x `height` (at most its size), in memory.
pub(super) fn scale_raster(raster: &Raster, width: u32, height: u32) -> Raster {
    let rect = Rect {
        x: 0,
        y: 0,
        width: raster.width,
        height: raster.height,
    };
    let mut scaler = BoxScaler::new(rect, width, height);
    for row in raster.pixels.chunks_exact(raster.width.max(1) as usize * 4) {
        scaler.push(row);
    }
    scaler.finish().unwrap_or_else(|| raster.clone())
}

/// Fills `rgba` (cleared first) with the RGBA form of `row`, 8-bit samples of `channels` per pixel
/// (1 gray, 2 gray + alpha, 3 RGB, 4 RGBA).
pub(super) fn to_rgba(row: &[u8], channels: usize, rgba: &mut Vec<u8>) {
    rgba.clear();
    match channels {
        1 => row
            .iter()
            .for_each(|&g| rgba.extend_from_slice(&[g, g, g, 255])),
        2 => row
            .chunks_exact(2)
            .for_each(|p| rgba.extend_from_slice(&[p[0], p[0], p[0], p[1]])),
        3 => row
            .chunks_exact(3)
            .for_each(|p| rgba.extend_from_slice(&[p[0], p[1], p[2], 255])),
        _ => rgba.extend_from_slice(row),
    }
}
