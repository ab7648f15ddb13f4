//! `replay-cluster --plot FILE`: the day's queue usage as an SVG (drawn with `plotters`, as the
//! what-if plot is): above, the memory each queue's applications held over the day, a step
//! line per queue with its guaranteed capacity dashed in the same colour (what YARN's
//! CapacityScheduler page shows as used against configured capacity); below, the containers
//! each queue waited for (ACCEPTED applications' AM containers and executors asked for and not
//! yet registered). Time is minutes after the day's first submission.

use super::cluster_report::{DayReport, QueueRow, QueueUsage};
use crate::error::UserError;
use plotters::coord::types::RangedCoordf64;
use plotters::prelude::*;
use std::path::Path;

const MINUTE_MS: f64 = 60_000.0;

/// A step line through a queue's usage: each value held until the next point, to the day's end.
fn steps(usage: &[QueueUsage], end_ms: u64, value: impl Fn(&QueueUsage) -> f64) -> Vec<(f64, f64)> {
    let mut out = Vec::with_capacity(usage.len() * 2 + 2);
    let mut last = 0.0;
    out.push((0.0, 0.0));
    for u in usage {
        let x = u.at_ms as f64 / MINUTE_MS;
        out.push((x, last));
        last = value(u);
        out.push((x, last));
    }
    out.push((end_ms as f64 / MINUTE_MS, last));
    out
}

type Chart<'a, 'b> = ChartContext<'a, SVGBackend<'b>, Cartesian2d<RangedCoordf64, RangedCoordf64>>;

/// Writes the plot of `r` to `path`.
pub fn write_svg(r: &DayReport, path: &Path) -> Result<(), UserError> {
    let fail = |e: String| {
        UserError::file(
            path.display().to_string(),
            format!("cannot draw the plot: {e}"),
        )
    };
    let end_ms = r.day_ms.max(1);
    let x1 = end_ms as f64 / MINUTE_MS;
    let root = SVGBackend::new(path, (900, 640)).into_drawing_area();
    root.fill(&WHITE).map_err(|e| fail(e.to_string()))?;
    let root = root
        .titled(
            &format!(
                "replay-cluster: {} application(s) on {} node(s), seed {}",
                r.applications.len(),
                r.nodes,
                r.seed
            ),
            ("sans-serif", 16),
        )
        .map_err(|e| fail(e.to_string()))?;
    let (top, bottom) = root.split_vertically(400);
    let held_max = r
        .queues
        .iter()
        .flat_map(|q| q.usage.iter().map(|u| u.used_mb).chain([q.guaranteed_mb]))
        .max()
        .unwrap_or(0) as f64;
    let mut held =
        chart(&top, x1, held_max, "memory held, MiB (guaranteed dashed)").map_err(fail)?;
    for (i, q) in r.queues.iter().enumerate() {
        draw_held(&mut held, q, end_ms, x1, Palette99::pick(i).to_rgba()).map_err(fail)?;
    }
    legend(&mut held).map_err(fail)?;
    let waiting_max = r
        .queues
        .iter()
        .flat_map(|q| q.usage.iter().map(|u| u.pending_containers))
        .max()
        .unwrap_or(0) as f64;
    let mut waiting = chart(&bottom, x1, waiting_max, "containers pending").map_err(fail)?;
    for (i, q) in r.queues.iter().enumerate() {
        let color = Palette99::pick(i).to_rgba();
        let line = steps(&q.usage, end_ms, |u| u.pending_containers as f64);
        waiting
            .draw_series(LineSeries::new(line, color.stroke_width(2)))
            .map_err(|e| fail(e.to_string()))?;
    }
    root.present().map_err(|e| fail(e.to_string()))
}

/// One panel: minutes after the first submission against `y_desc`, up to `y_max`.
fn chart<'a, 'b>(
    area: &'a DrawingArea<SVGBackend<'b>, plotters::coord::Shift>,
    x1: f64,
    y_max: f64,
    y_desc: &str,
) -> Result<Chart<'a, 'b>, String> {
    let fail = |e: DrawingAreaErrorKind<std::io::Error>| e.to_string();
    let mut c = ChartBuilder::on(area)
        .margin(12)
        .x_label_area_size(36)
        .y_label_area_size(64)
        .build_cartesian_2d(0.0..x1, 0.0..(y_max * 1.1).max(1.0))
        .map_err(fail)?;
    c.configure_mesh()
        .x_desc("minutes after the day's first submission")
        .y_desc(y_desc)
        .draw()
        .map_err(fail)?;
    Ok(c)
}

/// A queue's memory held (a step line, in the legend) and its guarantee (dashed).
fn draw_held(
    c: &mut Chart<'_, '_>,
    q: &QueueRow,
    end_ms: u64,
    x1: f64,
    color: RGBAColor,
) -> Result<(), String> {
    let line = steps(&q.usage, end_ms, |u| u.used_mb as f64);
    c.draw_series(LineSeries::new(line, color.stroke_width(2)))
        .map_err(|e| e.to_string())?
        .label(format!(
            "{} ({:.0} % guaranteed: {} MiB)",
            q.name, q.capacity_percent, q.guaranteed_mb
        ))
        .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], color.stroke_width(2)));
    let g = q.guaranteed_mb as f64;
    c.draw_series(DashedLineSeries::new(
        [(0.0, g), (x1, g)],
        6,
        4,
        color.stroke_width(1),
    ))
    .map_err(|e| e.to_string())?;
    Ok(())
}

fn legend<'a, 'b: 'a>(c: &mut Chart<'a, 'b>) -> Result<(), String> {
    c.configure_series_labels()
        .background_style(WHITE.mix(0.8))
        .border_style(BLACK)
        .draw()
        .map_err(|e| e.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_queues_line_holds_each_value_until_its_next_point_and_to_the_days_end() {
        let at = |at_ms, used_mb| QueueUsage {
            at_ms,
            used_mb,
            percent_of_guaranteed: 0.0,
            pending_applications: 0,
            pending_containers: 0,
        };
        let usage = [at(60_000, 1024), at(120_000, 0)];
        let line = steps(&usage, 180_000, |u| u.used_mb as f64);
        assert_eq!(
            line,
            [
                (0.0, 0.0),
                (1.0, 0.0),
                (1.0, 1024.0),
                (2.0, 1024.0),
                (2.0, 0.0),
                (3.0, 0.0)
            ]
        );
    }
}
