//! Shared by the tests. Each test file uses a part of it.

#[path = "../../../examples/echo.rs"]
#[allow(dead_code)]
pub mod echo;

#[allow(dead_code)]
pub mod hostile;

#[allow(dead_code)]
pub mod answer;

#[allow(dead_code)]
pub mod capture;
