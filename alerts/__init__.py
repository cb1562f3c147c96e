"""Alerts: channels and rules per team, an outbox of deliveries written with the state change that causes them."""
