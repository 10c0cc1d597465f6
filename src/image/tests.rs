//! The image windows' behaviour, on fixtures made in memory.

use std::io::Cursor;
use std::time::Instant;

use super::fixtures::*;
use super::*;

fn read(
    data: &[u8],
    format: ImageFormat,
    region: Option<PixelRegion>,
) -> Result<ImageWindow, ImageError> {
    read_image(
        Cursor::new(data),
        data.len() as u64,
        format,
        region,
        &ImageBudget::default(),
    )
}

fn region(x: u32, y: u32, width: u32, height: u32) -> PixelRegion {
    PixelRegion {
        x,
        y,
        width,
        height,
    }
}

#[test]
fn a_6000_by_4000_screenshot_is_shown_at_1313_by_875_png_with_its_tiles_in_the_hint() {
    let data = screenshot_png(6000, 4000);
    assert_eq!(sniff_image(&data), Some(Sniffed::Image(ImageFormat::Png)));
    let window = read(&data, ImageFormat::Png, None).unwrap();
    assert_eq!((window.width, window.height), (1313, 875));
    assert_eq!(
        (window.original_width, window.original_height),
        (6000, 4000)
    );
    assert_eq!(window.mime_type, "image/png");
    assert!(!window.kept_original);
    assert_eq!(window.region, region(0, 0, 6000, 4000));
    let (w, h, _) = decode_data(window.mime_type, &window.data);
    assert_eq!((w, h), (1313, 875));
    let text = hint(&window, "shot.png", &ImageBudget::default());
    assert_eq!(
        text,
        "shot.png: a 6,000 x 4,000 PNG image, shown at 0.22 scale (1,313 x 875); 5 x 5 regions of 1,200 x \
         800 show it at full resolution, the first is region=0,0,1200,800. Pass region=X,Y,W,H (original pixels) \
         to see any part at full resolution."
    );
}

#[test]
fn a_region_at_full_resolution_has_the_sources_pixels_exactly() {
    let data = screenshot_png(6000, 4000);
    let window = read(&data, ImageFormat::Png, Some(region(1200, 800, 1200, 800))).unwrap();
    assert_eq!(
        (window.width, window.height, window.scale),
        (1200, 800, 1.0)
    );
    assert_eq!(window.mime_type, "image/png");
    let (w, h, rgba) = decode_data(window.mime_type, &window.data);
    assert_eq!((w, h), (1200, 800));
    for y in 0..800 {
        for x in 0..1200 {
            let [r, g, b] = screenshot_pixel(1200 + x, 800 + y);
            assert_eq!(pixel_at(&rgba, w, x, y), [r, g, b, 255], "pixel {x},{y}");
        }
    }
    let text = hint(&window, "shot.png", &ImageBudget::default());
    assert_eq!(text, "shot.png: region 1200,800,1200,800 of the 6,000 x 4,000 PNG image, at full resolution (1,200 x 800).");
}

#[test]
fn a_region_past_the_edge_is_clipped_and_says_so() {
    let data = screenshot_png(600, 400);
    let window = read(&data, ImageFormat::Png, Some(region(500, 300, 300, 300))).unwrap();
    assert!(window.clipped);
    assert_eq!(window.region, region(500, 300, 100, 100));
    assert_eq!((window.width, window.height), (100, 100));
    let text = hint(&window, "s.png", &ImageBudget::default());
    assert_eq!(
        text,
        "s.png: region 500,300,100,100 (the asked region was clipped at the image's edge) of the 600 x 400 PNG \
         image, at full resolution (100 x 100)."
    );
}

#[test]
fn an_empty_region_or_one_outside_the_image_is_invalid_and_names_the_size() {
    let data = screenshot_png(60, 40);
    let outside = read(&data, ImageFormat::Png, Some(region(60, 0, 10, 10))).unwrap_err();
    assert_eq!(outside.kind, ImageErrorKind::InvalidRegion);
    assert_eq!(
        outside.message,
        "The region 60,0,10,10 starts outside the image: the image is 60 x 40 pixels, so x must be below 60 and y \
         below 40."
    );
    let empty = read(&data, ImageFormat::Png, Some(region(0, 0, 0, 10))).unwrap_err();
    assert_eq!(empty.kind, ImageErrorKind::InvalidRegion);
}

#[test]
fn a_scaled_region_names_its_own_tiles_offset_by_its_corner() {
    let data = screenshot_png(6000, 4000);
    let window = read(
        &data,
        ImageFormat::Png,
        Some(region(3000, 2000, 3000, 2000)),
    )
    .unwrap();
    assert_eq!((window.width, window.height), (1313, 875));
    let text = hint(&window, "shot.png", &ImageBudget::default());
    assert_eq!(
        text,
        "shot.png: region 3000,2000,3000,2000 of the 6,000 x 4,000 PNG image, at 0.44 scale (1,313 x 875); 3 x 3 \
         regions of 1,000 x 667 show it at full resolution, the first is region=3000,2000,1000,667."
    );
}

#[test]
fn a_photo_jpeg_is_shown_as_jpeg_decoded_at_half_dct_scale() {
    let data = jpeg(3000, 2000, None, |x, y| photo_pixel(x, y, 3000, 2000));
    let window = read(&data, ImageFormat::Jpeg, None).unwrap();
    assert_eq!((window.width, window.height), (1313, 875));
    assert_eq!(window.mime_type, "image/jpeg");
    assert!(encode::base64_len(window.data.len() as u64) <= 5_242_880);
    let plan = geometry::plan(
        3000,
        2000,
        1,
        &geometry::Request {
            region: None,
            budget: &ImageBudget::default(),
        },
    )
    .unwrap();
    assert_eq!(
        jpeg::dct_denominator(plan.source, plan.out_width, plan.out_height),
        2
    );
    let (w, h, rgba) = decode_data(window.mime_type, &window.data);
    assert_eq!((w, h), (1313, 875));
    // The gradient survives: red grows to the right, green downward.
    let left = pixel_at(&rgba, w, 10, 437);
    let right = pixel_at(&rgba, w, 1300, 437);
    assert!(right[0] > left[0] + 150, "{left:?} {right:?}");
}

#[test]
fn the_dct_scale_is_the_coarsest_that_still_gives_the_output_its_pixels() {
    let rect = |width, height| geometry::Rect {
        x: 0,
        y: 0,
        width,
        height,
    };
    assert_eq!(jpeg::dct_denominator(rect(12_000, 8_000), 1313, 875), 8);
    assert_eq!(jpeg::dct_denominator(rect(6_000, 4_000), 1313, 875), 4);
    assert_eq!(jpeg::dct_denominator(rect(1_200, 800), 1200, 800), 1);
}

#[test]
fn an_animated_gif_gives_its_first_frame_and_its_frame_count() {
    let data = gif(40, 30, 3);
    assert_eq!(sniff_image(&data), Some(Sniffed::Image(ImageFormat::Gif)));
    let window = read(&data, ImageFormat::Gif, None).unwrap();
    assert_eq!(window.frames, 3);
    assert!(!window.kept_original);
    let (w, h, rgba) = decode_data(window.mime_type, &window.data);
    assert_eq!((w, h), (40, 30));
    assert_eq!(pixel_at(&rgba, w, 0, 0), [255, 0, 0, 255]);
    assert_eq!(pixel_at(&rgba, w, 39, 29), [255, 0, 0, 255]);
    let text = hint(&window, "a.gif", &ImageBudget::default());
    assert_eq!(
        text,
        "a.gif: a 40 x 30 GIF image, the first of 3 frames, shown at full resolution (40 x 30)."
    );
}

#[test]
fn a_still_gif_that_fits_is_kept_as_it_is() {
    let data = gif(8, 8, 1);
    let window = read(&data, ImageFormat::Gif, None).unwrap();
    assert_eq!(
        (window.frames, window.kept_original, window.mime_type),
        (1, true, "image/gif")
    );
    assert_eq!(window.data, data);
}

#[test]
fn a_1_by_100000_strip_is_shown_1_by_1568_with_1_by_64_tiles() {
    let data = png_rows(1, 100_000, ::png::ColorType::Grayscale, |y, line| {
        line[0] = (y % 256) as u8
    });
    let window = read(&data, ImageFormat::Png, None).unwrap();
    assert_eq!((window.width, window.height), (1, 1568));
    let t = tiles(window.region, &ImageBudget::default());
    assert_eq!(
        t,
        Tiles {
            columns: 1,
            rows: 64,
            tile_width: 1,
            tile_height: 1563
        }
    );
    let text = hint(&window, "strip.png", &ImageBudget::default());
    assert!(
        text.contains("shown at 0.016 scale (1 x 1,568); 1 x 64 regions of 1 x 1,563 show it at full resolution, the first is region=0,0,1,1563."),
        "{text}"
    );
}

#[test]
fn a_png_bomb_is_too_large_before_anything_is_decoded() {
    let data = png_bomb(100_000, 100_000);
    let started = Instant::now();
    let error = read(&data, ImageFormat::Png, None).unwrap_err();
    assert!(started.elapsed().as_millis() < 200);
    assert_eq!(error.kind, ImageErrorKind::TooLarge);
    assert!(error.message.starts_with("The PNG's header says 100,000 x 100,000 pixels (10,000 million), more than the 500 million"), "{}", error.message);
}

#[test]
fn a_truncated_png_is_malformed_with_the_rows_it_has() {
    let data = screenshot_png(300, 200);
    let cut = &data[..data.len() / 2];
    let error = read(cut, ImageFormat::Png, None).unwrap_err();
    assert_eq!(error.kind, ImageErrorKind::Malformed);
    assert!(
        error
            .message
            .starts_with("The PNG is truncated or corrupt: its image data ends after "),
        "{}",
        error.message
    );
    assert!(
        error.message.contains(" of its 200 rows"),
        "{}",
        error.message
    );
}

#[test]
fn a_truncated_jpeg_is_malformed() {
    let data = jpeg(300, 200, None, |x, y| photo_pixel(x, y, 300, 200));
    let error = read(&data[..data.len() / 2], ImageFormat::Jpeg, None).unwrap_err();
    assert_eq!(error.kind, ImageErrorKind::Malformed);
    assert!(
        error
            .message
            .starts_with("The JPEG is truncated or corrupt"),
        "{}",
        error.message
    );
}

#[test]
fn content_not_the_extension_decides() {
    let png = screenshot_png(4, 4);
    assert_eq!(sniff_image(&png), Some(Sniffed::Image(ImageFormat::Png)));
    assert_eq!(
        sniff_image(b"PNG images are described in RFC 2083.\n"),
        None
    );
    assert_eq!(sniff_image(b"GIF89 is not a header"), None);
    assert_eq!(sniff_image(b"BMP"), None);
    let bmp = bmp24(2, 2, &[0; 12]);
    assert_eq!(sniff_image(&bmp), Some(Sniffed::Image(ImageFormat::Bmp)));
    assert_eq!(
        sniff_image(&webp(1, 1, &[0, 0, 0, 255])),
        Some(Sniffed::Image(ImageFormat::WebP))
    );
}

#[test]
fn heic_avif_tiff_and_friends_are_refused_with_a_converter() {
    let ftyp = |brand: &[u8; 4], compatible: &[u8; 4]| {
        let mut head = vec![0, 0, 0, 24];
        head.extend_from_slice(b"ftyp");
        head.extend_from_slice(brand);
        head.extend_from_slice(&[0, 0, 0, 0]);
        head.extend_from_slice(b"mif1");
        head.extend_from_slice(compatible);
        head.resize(64, 0);
        head
    };
    let format = |head: &[u8]| match sniff_image(head) {
        Some(Sniffed::Unsupported { format, advice }) => (format, advice),
        other => panic!("{other:?}"),
    };
    let (name, advice) = format(&ftyp(b"heic", b"heic"));
    assert_eq!(name, "HEIC");
    assert!(advice.contains("heif-convert in.heic out.jpg"));
    let (name, advice) = format(&ftyp(b"avif", b"miaf"));
    assert_eq!(name, "AVIF");
    assert!(advice.contains("magick in.avif out.png"));
    assert_eq!(format(&ftyp(b"mif1", b"avif")).0, "AVIF");
    assert_eq!(format(&ftyp(b"crx ", b"isom")).0, "Canon CR3 camera raw");
    let (name, advice) = format(b"II*\0\x08\0\0\0");
    assert!(name.starts_with("TIFF"));
    assert!(advice.contains("dcraw -c -w in.nef"));
    assert_eq!(format(b"\xff\x0a\x00").0, "JPEG XL");
    assert_eq!(format(b"8BPS\0\x01").0, "Photoshop PSD");
    let mut mp4 = ftyp(b"isom", b"mp41");
    mp4[16..20].copy_from_slice(b"avc1");
    assert_eq!(sniff_image(&mp4), None);
}

#[test]
fn exif_orientation_6_turns_the_image_a_quarter_clockwise() {
    // Stored 40 x 20: top-left red, top-right green, bottom-left blue, bottom-right white.
    let exif = exif_orientation(6);
    let data = jpeg(40, 20, Some(&exif), |x, y| match (x < 20, y < 10) {
        (true, true) => [255, 0, 0],
        (false, true) => [0, 255, 0],
        (true, false) => [0, 0, 255],
        (false, false) => [255, 255, 255],
    });
    let window = read(&data, ImageFormat::Jpeg, None).unwrap();
    assert_eq!(window.orientation, 6);
    assert!(!window.kept_original);
    assert_eq!((window.original_width, window.original_height), (20, 40));
    assert_eq!((window.width, window.height), (20, 40));
    let (w, h, rgba) = decode_data(window.mime_type, &window.data);
    assert_eq!((w, h), (20, 40));
    let near = |p: [u8; 4], c: [u8; 3]| p[..3].iter().zip(c).all(|(&a, b)| a.abs_diff(b) < 40);
    // Shown top-left is stored bottom-left (blue); shown top-right is stored top-left (red).
    assert!(
        near(pixel_at(&rgba, w, 1, 1), [0, 0, 255]),
        "{:?}",
        pixel_at(&rgba, w, 1, 1)
    );
    assert!(
        near(pixel_at(&rgba, w, 18, 1), [255, 0, 0]),
        "{:?}",
        pixel_at(&rgba, w, 18, 1)
    );
    assert!(
        near(pixel_at(&rgba, w, 18, 38), [0, 255, 0]),
        "{:?}",
        pixel_at(&rgba, w, 18, 38)
    );
    assert!(
        near(pixel_at(&rgba, w, 1, 38), [255, 255, 255]),
        "{:?}",
        pixel_at(&rgba, w, 1, 38)
    );
    let text = hint(&window, "p.jpg", &ImageBudget::default());
    assert_eq!(text, "p.jpg: a 20 x 40 JPEG image, EXIF orientation 6 applied, shown at full resolution (20 x 40).");
}

#[test]
fn a_region_of_an_oriented_image_is_in_shown_pixels() {
    let exif = exif_orientation(6);
    let data = jpeg(40, 20, Some(&exif), |x, _| {
        if x < 20 {
            [255, 0, 0]
        } else {
            [0, 0, 255]
        }
    });
    // Shown 20 x 40: the top half (stored left, red) and the bottom half (stored right, blue).
    let window = read(&data, ImageFormat::Jpeg, Some(region(0, 24, 20, 16))).unwrap();
    assert_eq!((window.width, window.height), (20, 16));
    let (w, _, rgba) = decode_data(window.mime_type, &window.data);
    let p = pixel_at(&rgba, w, 10, 8);
    assert!(p[2] > 200 && p[0] < 60, "{p:?}");
}

#[test]
fn a_small_png_that_fits_is_its_own_bytes() {
    let data = screenshot_png(64, 48);
    let window = read(&data, ImageFormat::Png, None).unwrap();
    assert!(window.kept_original);
    assert_eq!(window.data, data);
    assert_eq!((window.width, window.height, window.scale), (64, 48, 1.0));
    assert_eq!(
        hint(&window, "s.png", &ImageBudget::default()),
        "s.png: a 64 x 48 PNG image, shown at full resolution (64 x 48)."
    );
}

#[test]
fn an_image_over_the_byte_budget_is_re_encoded_until_its_base64_fits() {
    let data = jpeg(800, 600, None, |x, y| photo_pixel(x, y, 800, 600));
    let budget = ImageBudget {
        max_base64_bytes: 20_000,
        ..ImageBudget::default()
    };
    assert!(encode::base64_len(data.len() as u64) > 20_000);
    let window = read_image(
        Cursor::new(&data),
        data.len() as u64,
        ImageFormat::Jpeg,
        None,
        &budget,
    )
    .unwrap();
    assert!(!window.kept_original);
    assert!(
        encode::base64_len(window.data.len() as u64) <= 20_000,
        "{}",
        window.data.len()
    );
    let (w, h, _) = decode_data(window.mime_type, &window.data);
    assert_eq!((w, h), (window.width, window.height));
    assert!(window.width < 800 && window.scale < 1.0);
}

#[test]
fn a_bmp_region_reads_its_pixels_exactly() {
    let (w, h) = (7u32, 5u32);
    let rgb: Vec<u8> = (0..w * h * 3).map(|i| (i * 7 % 256) as u8).collect();
    let data = bmp24(w, h, &rgb);
    let window = read(&data, ImageFormat::Bmp, Some(region(2, 1, 4, 3))).unwrap();
    assert_eq!(window.mime_type, "image/png");
    let (ow, oh, rgba) = decode_data(window.mime_type, &window.data);
    assert_eq!((ow, oh), (4, 3));
    for y in 0..3 {
        for x in 0..4 {
            let i = (((y + 1) * w + x + 2) * 3) as usize;
            assert_eq!(
                pixel_at(&rgba, ow, x, y),
                [rgb[i], rgb[i + 1], rgb[i + 2], 255]
            );
        }
    }
    // A whole BMP is never sent as BMP.
    let whole = read(&data, ImageFormat::Bmp, None).unwrap();
    assert_eq!((whole.kept_original, whole.mime_type), (false, "image/png"));
}

#[test]
fn a_webp_keeps_its_alpha_in_a_png() {
    let rgba: Vec<u8> = (0..6 * 4)
        .flat_map(|i| [i as u8 * 10, 0, 255, if i % 2 == 0 { 255 } else { 0 }])
        .collect();
    let data = webp(6, 4, &rgba);
    // A region (the top three rows) is decoded and re-encoded; the whole image would be the file's own bytes.
    let window = read(&data, ImageFormat::WebP, Some(region(0, 0, 6, 3))).unwrap();
    assert_eq!(window.mime_type, "image/png");
    let (w, h, out) = decode_data(window.mime_type, &window.data);
    assert_eq!((w, h), (6, 3));
    assert_eq!(pixel_at(&out, w, 0, 0), [0, 0, 255, 255]);
    assert_eq!(pixel_at(&out, w, 1, 0)[3], 0);
}

#[test]
fn the_scale_follows_the_side_and_pixel_caps() {
    let budget = ImageBudget::default();
    assert_eq!(geometry::fit_size(6000, 4000, &budget), (1313, 875));
    assert_eq!(geometry::fit_size(1, 100_000, &budget), (1, 1568));
    assert_eq!(geometry::fit_size(3136, 100, &budget), (1568, 50));
    assert_eq!(geometry::fit_size(1000, 1000, &budget), (1000, 1000));
    assert_eq!(
        tiles(region(0, 0, 6000, 4000), &budget),
        Tiles {
            columns: 5,
            rows: 5,
            tile_width: 1200,
            tile_height: 800
        }
    );
    assert_eq!(
        tiles(region(0, 0, 800, 600), &budget),
        Tiles {
            columns: 1,
            rows: 1,
            tile_width: 800,
            tile_height: 600
        }
    );
}

#[test]
fn the_box_scaler_averages_and_holds_one_row_of_accumulators() {
    let rect = geometry::Rect {
        x: 0,
        y: 0,
        width: 20_000,
        height: 4,
    };
    let mut scaler = scale::BoxScaler::new(rect, 1568, 1);
    assert_eq!(scaler.accumulator_bytes(), 1568 * 32 + 1568 * 4);
    let row: Vec<u8> = (0..20_000u32)
        .flat_map(|x| {
            if x % 2 == 0 {
                [0, 0, 0, 255]
            } else {
                [200, 100, 50, 255]
            }
        })
        .collect();
    for _ in 0..4 {
        scaler.push(&row);
    }
    let raster = scaler.finish().unwrap();
    assert_eq!((raster.width, raster.height), (1568, 1));
    // Box 0 is columns 0..12 (6 of each), box 1 is columns 12..25 (7 black, 6 coloured).
    assert_eq!(&raster.pixels[..8], &[100, 50, 25, 255, 92, 46, 23, 255]);
}

/// The 20,000 x 20,000 scan: run with `cargo test --release -- --ignored twenty_thousand`.
#[test]
#[ignore]
fn a_20000_square_gray_png_streams_to_its_overview() {
    let data = png_rows(20_000, 20_000, ::png::ColorType::Grayscale, |y, line| {
        line.fill(255);
        if y % 100 == 0 {
            line.fill(0);
        }
    });
    let started = Instant::now();
    let window = read(&data, ImageFormat::Png, None).unwrap();
    eprintln!(
        "20,000 x 20,000 PNG ({} bytes) read in {:?}",
        data.len(),
        started.elapsed()
    );
    assert_eq!((window.width, window.height), (1072, 1072));
}
