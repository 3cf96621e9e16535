"""Players that are not people: the bots, the coach's chances, the coach beside a table, simulations."""
