"""Tests of `pixops recon`, the command (`pixops._cli_recon`)."""
