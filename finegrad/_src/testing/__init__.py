"""The checkers behind `finegrad.testing` and the ``finegrad check`` command: gradient checks
against finite differences (`gradient_checks`), the comparison of a derivative with the
expected one (`comparison`), the sweep over a range (`sweep`, its report `sweep_report`,
`sweep_text`, `sweep_plot`, its command line `sweep_cli`, behind ``finegrad check``) and a
progress bar (`progress`)."""
