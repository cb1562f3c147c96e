"""Alerts' services: channels and rules (writes of the API), incidents (the hooks), delivery (the task)."""
