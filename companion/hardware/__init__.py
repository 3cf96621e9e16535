"""The table's hardware adapters: the RFID reader, the NeoPixel ring and the buttons.

Like gpiozero's pin backends, each adapter has a real side (Raspberry Pi drivers,
imported lazily) and a simulated side, chosen at start-up by one switch (``--mock``).
"""
