//! The what-if plot (SVG, drawn with `plotters`): runtime p10, p50 and p90 against the grid's
//! first key, one colour per value of the other keys (p50 solid with points, p10 and p90 thin).

use super::whatif::WhatIfTable;
use crate::error::UserError;
use plotters::prelude::*;
use std::collections::BTreeMap;
use std::path::Path;

/// One line of the plot: (x position, p10, p50, p90) in seconds.
type Series = Vec<(f64, f64, f64, f64)>;

/// Lines by the values of the keys after the first, in grid order; x is the first key's value
/// when every value is a number, else its position.
fn series(t: &WhatIfTable) -> (Vec<(String, Series)>, Vec<String>) {
    let firsts: Vec<String> = {
        let mut v: Vec<String> = Vec::new();
        for r in &t.rows {
            if !v.contains(&r.values[0]) {
                v.push(r.values[0].clone());
            }
        }
        v
    };
    let numeric = firsts.iter().all(|v| v.parse::<f64>().is_ok());
    let x_of = |v: &str| -> f64 {
        if numeric {
            v.parse().unwrap_or(0.0)
        } else {
            firsts.iter().position(|f| f == v).unwrap_or(0) as f64
        }
    };
    let mut order: Vec<String> = Vec::new();
    let mut lines: BTreeMap<String, Series> = BTreeMap::new();
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
            "p50 (p10..p90)".to_string()
        } else {
            label
        };
        if !order.contains(&label) {
            order.push(label.clone());
        }
        let s = |ms: u64| ms as f64 / 1000.0;
        lines.entry(label).or_default().push((
            x_of(&r.values[0]),
            s(r.p10_ms),
            s(r.p50_ms),
            s(r.p90_ms),
        ));
    }
    let out = order
        .into_iter()
        .map(|l| {
            let s = lines.remove(&l).unwrap_or_default();
            (l, s)
        })
        .collect();
    (out, firsts)
}

/// Writes the plot to `path`.
pub fn write_svg(t: &WhatIfTable, path: &Path) -> Result<(), UserError> {
    let fail = |e: String| {
        UserError::file(
            path.display().to_string(),
            format!("cannot draw the plot: {e}"),
        )
    };
    let (lines, _) = series(t);
    let xs = lines.iter().flat_map(|(_, s)| s.iter().map(|p| p.0));
    let (x0, x1) = xs.fold((f64::MAX, f64::MIN), |(a, b), x| (a.min(x), b.max(x)));
    let y1 = lines
        .iter()
        .flat_map(|(_, s)| s.iter().map(|p| p.3))
        .fold(0.0f64, f64::max);
    let (x0, x1) = if x0 < x1 {
        (x0, x1)
    } else {
        (x0 - 1.0, x0 + 1.0)
    };
    let pad = (x1 - x0) * 0.05;
    let root = SVGBackend::new(path, (800, 500)).into_drawing_area();
    root.fill(&WHITE).map_err(|e| fail(e.to_string()))?;
    let mut chart = ChartBuilder::on(&root)
        .caption(format!("what-if: {}", t.log), ("sans-serif", 18))
        .margin(15)
        .x_label_area_size(40)
        .y_label_area_size(60)
        .build_cartesian_2d((x0 - pad)..(x1 + pad), 0.0..(y1 * 1.1).max(1.0))
        .map_err(|e| fail(e.to_string()))?;
    chart
        .configure_mesh()
        .x_desc(t.keys.first().cloned().unwrap_or_default())
        .y_desc("application time, s (p10 / p50 / p90)")
        .draw()
        .map_err(|e| fail(e.to_string()))?;
    for (i, (label, s)) in lines.iter().enumerate() {
        let color = Palette99::pick(i).to_rgba();
        for (pick, width) in [(1usize, 1u32), (3, 1)] {
            let pts = s.iter().map(|p| (p.0, if pick == 1 { p.1 } else { p.3 }));
            chart
                .draw_series(LineSeries::new(pts, color.stroke_width(width)))
                .map_err(|e| fail(e.to_string()))?;
        }
        chart
            .draw_series(LineSeries::new(
                s.iter().map(|p| (p.0, p.2)),
                color.stroke_width(3),
            ))
            .map_err(|e| fail(e.to_string()))?
            .label(label.clone())
            .legend(move |(x, y)| {
                PathElement::new(vec![(x, y), (x + 20, y)], color.stroke_width(3))
            });
        chart
            .draw_series(s.iter().map(|p| Circle::new((p.0, p.2), 4, color.filled())))
            .map_err(|e| fail(e.to_string()))?;
    }
    chart
        .configure_series_labels()
        .background_style(WHITE.mix(0.8))
        .border_style(BLACK)
        .draw()
        .map_err(|e| fail(e.to_string()))?;
    root.present().map_err(|e| fail(e.to_string()))
}
