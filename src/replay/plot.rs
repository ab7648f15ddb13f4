//! The what-if plot (SVG, drawn with `plotters`): runtime p10, p50 and p90 against the grid's
//! first key (what-if-cluster's: the day's length, through the same [`Plot`]), one colour per value of the other keys (p50 solid with points, p10 and p90 thin,
//! the uncertainty band shaded). A first key with values that are not all numbers (`1g,2g`,
//! `true,false`) is an axis of those values, labelled by them. Configurations with no
//! successful run have no time: they are not drawn (the line breaks there) and the caption
//! counts them; the table says why they failed.

use super::whatif::WhatIfTable;
use crate::error::UserError;
use plotters::prelude::*;
use std::collections::BTreeMap;
use std::path::Path;

/// What a plot draws: a figure per configuration of a grid, against its first key.
#[derive(Clone, Debug)]
pub struct Plot {
    /// The caption (the count of configurations not drawn is added to it).
    pub title: String,
    pub y_desc: String,
    pub keys: Vec<String>,
    pub rows: Vec<PlotRow>,
}

/// One configuration: its grid values and its figure's p10/p50/p90 (`None`: nothing to draw),
/// with the band shaded (p10 to p90 when it has none).
#[derive(Clone, Debug)]
pub struct PlotRow {
    pub values: Vec<String>,
    pub p10_ms: Option<u64>,
    pub p50_ms: Option<u64>,
    pub p90_ms: Option<u64>,
    pub band_ms: Option<(u64, u64)>,
}

impl Plot {
    /// The what-if's plot: the application's time, with each row's uncertainty band.
    pub fn of_what_if(t: &WhatIfTable) -> Plot {
        Plot {
            title: format!("what-if: {}", t.log),
            y_desc: "application time, s (p10 / p50 / p90; band shaded)".into(),
            keys: t.keys.clone(),
            rows: t
                .rows
                .iter()
                .map(|r| PlotRow {
                    values: r.values.clone(),
                    p10_ms: r.p10_ms,
                    p50_ms: r.p50_ms,
                    p90_ms: r.p90_ms,
                    band_ms: r.band.map(|b| (b.p10_ms, b.p90_ms)),
                })
                .collect(),
        }
    }
}

/// One configuration's point, seconds.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Point {
    x: f64,
    p10: f64,
    p50: f64,
    p90: f64,
    band_lo: f64,
    band_hi: f64,
}

/// A line: its runs of consecutive drawable points (a failed configuration breaks it).
type Segments = Vec<Vec<Point>>;

/// The first key's axis: its values as numbers, or as named positions 0, 1, 2, ...
struct Axis {
    names: Vec<String>,
    numeric: bool,
}

impl Axis {
    fn of(t: &Plot) -> Axis {
        let mut names: Vec<String> = Vec::new();
        for r in &t.rows {
            if !names.contains(&r.values[0]) {
                names.push(r.values[0].clone());
            }
        }
        let numeric = names.iter().all(|v| v.parse::<f64>().is_ok());
        Axis { names, numeric }
    }

    fn x(&self, v: &str) -> f64 {
        if self.numeric {
            v.parse().unwrap_or(0.0)
        } else {
            self.names.iter().position(|f| f == v).unwrap_or(0) as f64
        }
    }

    /// The label at `x`: the number, or the name of the value at that position.
    fn label(&self, x: f64) -> String {
        if self.numeric {
            // A key point such as 0.30000000000000004 prints as 0.3.
            let fixed = format!("{x:.3}");
            return fixed
                .trim_end_matches('0')
                .trim_end_matches('.')
                .to_string();
        }
        let i = x.round();
        if (x - i).abs() > 1e-6 || i < 0.0 {
            return String::new();
        }
        self.names.get(i as usize).cloned().unwrap_or_default()
    }
}

fn point(axis: &Axis, r: &PlotRow) -> Option<Point> {
    let s = |ms: u64| ms as f64 / 1000.0;
    let (p10, p50, p90) = (r.p10_ms?, r.p50_ms?, r.p90_ms?);
    let band = r.band_ms;
    Some(Point {
        x: axis.x(&r.values[0]),
        p10: s(p10),
        p50: s(p50),
        p90: s(p90),
        band_lo: band.map_or(s(p10), |b| s(b.0)),
        band_hi: band.map_or(s(p90), |b| s(b.1)),
    })
}

/// Lines by the values of the keys after the first, in grid order.
fn lines(t: &Plot, axis: &Axis) -> Vec<(String, Segments)> {
    let mut order: Vec<String> = Vec::new();
    let mut lines: BTreeMap<String, Segments> = BTreeMap::new();
    for r in &t.rows {
        let label = t
            .keys
            .iter()
            .zip(&r.values)
            .skip(1)
            .map(|(k, v)| format!("{k}={v}"))
            .collect::<Vec<_>>()
            .join(", ");
        let label = if label.is_empty() {
            "p50 (p10..p90, band shaded)".to_string()
        } else {
            label
        };
        if !order.contains(&label) {
            order.push(label.clone());
        }
        let segments = lines.entry(label).or_insert_with(|| vec![Vec::new()]);
        match point(axis, r) {
            Some(p) => segments.last_mut().map(|s| s.push(p)).unwrap_or(()),
            None if segments.last().is_some_and(|s| !s.is_empty()) => segments.push(Vec::new()),
            None => {}
        }
    }
    order
        .into_iter()
        .map(|l| {
            let mut s = lines.remove(&l).unwrap_or_default();
            s.retain(|seg| !seg.is_empty());
            (l, s)
        })
        .collect()
}

/// Writes the what-if's plot to `path`.
pub fn write_svg(t: &WhatIfTable, path: &Path) -> Result<(), UserError> {
    draw(&Plot::of_what_if(t), path)
}

/// Writes `t` to `path` as an SVG.
pub fn draw(t: &Plot, path: &Path) -> Result<(), UserError> {
    let fail = |e: String| {
        UserError::file(
            path.display().to_string(),
            format!("cannot draw the plot: {e}"),
        )
    };
    let axis = Axis::of(t);
    let lines = lines(t, &axis);
    let points = || lines.iter().flat_map(|(_, s)| s.iter().flatten());
    let (x0, x1) = if axis.numeric {
        let xs = t.rows.iter().map(|r| axis.x(&r.values[0]));
        xs.fold((f64::MAX, f64::MIN), |(a, b), x| (a.min(x), b.max(x)))
    } else {
        (0.0, axis.names.len().saturating_sub(1) as f64)
    };
    let (x0, x1) = if x0 < x1 {
        (x0, x1)
    } else {
        (x0 - 1.0, x0 + 1.0)
    };
    let y1 = points()
        .map(|p| p.band_hi.max(p.p90))
        .fold(0.0f64, f64::max);
    let pad = if axis.numeric { (x1 - x0) * 0.05 } else { 0.5 };
    let not_drawn = t.rows.iter().filter(|r| r.p50_ms.is_none()).count();
    let caption = match not_drawn {
        0 => t.title.clone(),
        n => format!(
            "{} ({n} configuration(s) with no successful run not drawn; see the table)",
            t.title
        ),
    };
    let root = SVGBackend::new(path, (800, 500)).into_drawing_area();
    root.fill(&WHITE).map_err(|e| fail(e.to_string()))?;
    let mut chart = ChartBuilder::on(&root)
        .caption(caption, ("sans-serif", 16))
        .margin(15)
        .x_label_area_size(40)
        .y_label_area_size(60)
        .build_cartesian_2d((x0 - pad)..(x1 + pad), 0.0..(y1 * 1.1).max(1.0))
        .map_err(|e| fail(e.to_string()))?;
    let label = |x: &f64| axis.label(*x);
    let mut mesh = chart.configure_mesh();
    mesh.x_desc(t.keys.first().cloned().unwrap_or_default())
        .y_desc(t.y_desc.as_str())
        .x_label_formatter(&label);
    if !axis.numeric {
        mesh.x_labels(axis.names.len() + 1).disable_x_mesh();
    }
    mesh.draw().map_err(|e| fail(e.to_string()))?;
    for (i, (name, segments)) in lines.iter().enumerate() {
        let color = Palette99::pick(i).to_rgba();
        for (k, s) in segments.iter().enumerate() {
            draw_segment(&mut chart, s, color, (k == 0).then_some(name.as_str())).map_err(fail)?;
        }
    }
    chart
        .configure_series_labels()
        .background_style(WHITE.mix(0.8))
        .border_style(BLACK)
        .draw()
        .map_err(|e| fail(e.to_string()))?;
    root.present().map_err(|e| fail(e.to_string()))
}

type Chart<'a> = ChartContext<
    'a,
    SVGBackend<'a>,
    Cartesian2d<plotters::coord::types::RangedCoordf64, plotters::coord::types::RangedCoordf64>,
>;

/// One run of points: the band shaded, p10 and p90 thin, p50 thick with points (and the
/// legend entry when `label` is given).
fn draw_segment(
    chart: &mut Chart<'_>,
    s: &[Point],
    color: RGBAColor,
    label: Option<&str>,
) -> Result<(), String> {
    let err = |e: DrawingAreaErrorKind<std::io::Error>| e.to_string();
    let outline: Vec<(f64, f64)> = s
        .iter()
        .map(|p| (p.x, p.band_lo))
        .chain(s.iter().rev().map(|p| (p.x, p.band_hi)))
        .collect();
    chart
        .draw_series(std::iter::once(Polygon::new(
            outline,
            color.mix(0.12).filled(),
        )))
        .map_err(err)?;
    for pick in [|p: &Point| p.p10, |p: &Point| p.p90] {
        chart
            .draw_series(LineSeries::new(
                s.iter().map(|p| (p.x, pick(p))),
                color.stroke_width(1),
            ))
            .map_err(err)?;
    }
    let p50 = chart
        .draw_series(LineSeries::new(
            s.iter().map(|p| (p.x, p.p50)),
            color.stroke_width(3),
        ))
        .map_err(err)?;
    if let Some(l) = label {
        p50.label(l.to_string()).legend(move |(x, y)| {
            PathElement::new(vec![(x, y), (x + 20, y)], color.stroke_width(3))
        });
    }
    chart
        .draw_series(
            s.iter()
                .map(|p| Circle::new((p.x, p.p50), 4, color.filled())),
        )
        .map_err(err)?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn categorical_values_label_their_positions() {
        let axis = Axis {
            names: vec!["1g".into(), "2g".into(), "4g".into()],
            numeric: false,
        };
        assert_eq!(axis.x("2g"), 1.0);
        assert_eq!(axis.label(2.0), "4g");
        assert_eq!(axis.label(0.5), "");
        assert_eq!(axis.label(3.0), "");
        let n = Axis {
            names: vec!["1".into(), "8".into()],
            numeric: true,
        };
        assert_eq!(n.x("8"), 8.0);
        assert_eq!(
            (n.label(0.1 + 0.2), n.label(4.0), n.label(2.5)),
            ("0.3".into(), "4".into(), "2.5".into())
        );
    }
}
