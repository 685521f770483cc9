"""Money movement: charges, inbound credits, payouts and refunds, with their state machines."""
