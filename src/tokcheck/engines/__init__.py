"""Inference engines tokcheck can start and read (R2), and their provisioning."""
