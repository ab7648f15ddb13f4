//! The run outputs: event log, timeline, sequence diagram, progress (issue 4).
