//! Histograms as inline SVG, drawn by plotters' SVG backend. Only numbers reach a chart (the
//! bins and their labels, which this program writes), never a string from the input; the
//! backend escapes its text all the same.

use plotters::prelude::*;

/// One bar: values from `low` up to `high`, and how many fell there.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Bin {
    pub(crate) low: f64,
    pub(crate) high: f64,
    pub(crate) count: u64,
}

/// The size a chart is drawn at; the page scales it to its width (the SVG has a viewBox).
const SIZE: (u32, u32) = (640, 240);

/// The bar colour: the page's accent.
const BAR: RGBColor = RGBColor(0x2b, 0x6c, 0xb0);

/// A histogram of `bins` (in order, touching) as an SVG element, the x axis described by
/// `x_label`, its values written by `x_text`.
///
/// # Errors
///
/// The drawing's own error, as text: a bug, never the input's fault.
pub(crate) fn histogram(
    bins: &[Bin],
    x_label: &str,
    x_text: &dyn Fn(f64) -> String,
) -> Result<String, String> {
    let mut svg = String::new();
    let low = bins.first().map_or(0.0, |bin| bin.low);
    let mut high = bins.last().map_or(1.0, |bin| bin.high);
    if high <= low {
        high = low + 1.0;
    }
    let most = bins.iter().map(|bin| bin.count).max().unwrap_or(0).max(1);
    {
        let root = SVGBackend::with_string(&mut svg, SIZE).into_drawing_area();
        root.fill(&WHITE).map_err(|err| err.to_string())?;
        let mut chart = ChartBuilder::on(&root)
            .margin(12)
            .x_label_area_size(40)
            .y_label_area_size(52)
            .build_cartesian_2d(low..high, 0..most + most / 10 + 1)
            .map_err(|err| err.to_string())?;
        chart
            .configure_mesh()
            .disable_x_mesh()
            .x_desc(x_label)
            .y_desc("requests")
            .x_labels(6)
            .y_labels(5)
            .x_label_formatter(&|x| x_text(*x))
            .label_style(("sans-serif", 13))
            .axis_desc_style(("sans-serif", 14))
            .draw()
            .map_err(|err| err.to_string())?;
        chart
            .draw_series(
                bins.iter()
                    .filter(|bin| bin.count > 0)
                    .map(|bin| Rectangle::new([(bin.low, 0), (bin.high, bin.count)], BAR.filled())),
            )
            .map_err(|err| err.to_string())?;
        root.present().map_err(|err| err.to_string())?;
    }
    Ok(svg)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_histogram_is_one_svg_element_with_a_bar_per_filled_bin() {
        let bins = [
            Bin {
                low: 0.0,
                high: 0.5,
                count: 3,
            },
            Bin {
                low: 0.5,
                high: 1.0,
                count: 0,
            },
        ];
        let svg = histogram(&bins, "fill", &|x| format!("{x:.1}")).unwrap();
        assert!(svg.starts_with("<svg"), "{svg}");
        assert!(svg.contains("viewBox"));
        assert!(svg.trim_end().ends_with("</svg>"));
        assert!(!svg.contains("<script"));
        // No bins at all still draws the axes.
        assert!(histogram(&[], "fill", &|x| format!("{x}")).is_ok());
    }
}
