//! One read of an image: decode (streaming where the format allows), orient, fit to the budget and encode, or
//! keep the file's own bytes when they already fit.

use std::io::{Read, Seek, SeekFrom};

use super::{
    bmp, encode, geometry, gif, jpeg, png, scale, webp, ImageBudget, ImageError, ImageFormat,
    ImageWindow, PixelRegion,
};

/// Reads the image `format` from `source` (the whole file, `file_size` bytes; reads it streaming, may seek).
/// `region` None: the whole image. Errors: TooLarge (header over the caps), Malformed, InvalidRegion (empty,
/// or starting outside the image: the message says the image's size).
pub fn read_image<R: Read + Seek>(
    mut source: R,
    file_size: u64,
    format: ImageFormat,
    region: Option<PixelRegion>,
    budget: &ImageBudget,
) -> Result<ImageWindow, ImageError> {
    let request = geometry::Request { region, budget };
    let decoded = match format {
        ImageFormat::Png => png::decode(&mut source, &request)?,
        ImageFormat::Jpeg => jpeg::decode(&mut source, &request)?,
        ImageFormat::Gif => gif::decode(&mut source, &request)?,
        ImageFormat::WebP => webp::decode(&mut source, &request)?,
        ImageFormat::Bmp => bmp::decode(&mut source, file_size, &request)?,
    };
    let plan = decoded.plan;
    // A region that is the whole image asks for what no region asks for.
    let whole = PixelRegion {
        x: 0,
        y: 0,
        width: plan.oriented_width,
        height: plan.oriented_height,
    };
    let keep = plan.region == whole
        && !plan.clipped
        && plan.full_resolution()
        && plan.orientation == 1
        && decoded.frames == 1
        && format.sendable()
        && encode::base64_len(file_size) <= budget.max_base64_bytes;
    let mut window = ImageWindow {
        mime_type: format.mime_type(),
        width: plan.out_width,
        height: plan.out_height,
        original_width: plan.oriented_width,
        original_height: plan.oriented_height,
        scale: 1.0,
        region: plan.region,
        clipped: plan.clipped,
        frames: decoded.frames,
        source_format: format,
        kept_original: keep,
        orientation: plan.orientation,
        data: Vec::new(),
    };
    if keep {
        window.data = read_whole(&mut source, file_size)?;
        return Ok(window);
    }
    let raster = geometry::orient(decoded.raster, plan.orientation);
    let encoded = encode::fit(raster, format == ImageFormat::Jpeg, budget)?;
    window.mime_type = encoded.mime_type;
    window.width = encoded.width;
    window.height = encoded.height;
    window.scale = geometry::shown_scale(encoded.width, encoded.height, plan.region);
    window.data = encoded.data;
    Ok(window)
}

/// The file's own bytes, for a window that keeps the original.
fn read_whole<R: Read + Seek>(source: &mut R, file_size: u64) -> Result<Vec<u8>, ImageError> {
    let failed = |e: std::io::Error| {
        ImageError::malformed(format!("The image could not be read again: {e}."))
    };
    source.seek(SeekFrom::Start(0)).map_err(failed)?;
    let mut data = Vec::with_capacity(usize::try_from(file_size).unwrap_or(0));
    source.read_to_end(&mut data).map_err(failed)?;
    Ok(data)
}

/// What a decoder hands back: the raster in stored orientation, the plan it followed, the frame count.
pub(super) struct Decoded {
    pub(super) raster: scale::Raster,
    pub(super) plan: geometry::Plan,
    pub(super) frames: u32,
}
