"""What is built on ``evaluate``: comparisons, reports, agreement, pools and judging
plans, depth curves, properties, PIR, curves and tie sensitivity."""
