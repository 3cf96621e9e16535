"""A venue: tables publish what they commit to the venue's MQTT broker, a hall follows them all.

`topics` (names and message shapes, no MQTT library), `publisher` (a table's outbox),
`hall` (the follower that keeps every table's games), `hall_web` (its read-only page) and
`discovery` (Home Assistant). paho-mqtt is imported only inside `publisher` and `hall`,
when they connect: a table without ``[venue]`` never imports it (docs/venue.md).
"""
