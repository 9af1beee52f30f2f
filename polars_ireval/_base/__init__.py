"""What every layer shares: column names, numeric tolerance, collecting, progress,
resource guards."""
