"""End-to-end tests of the progress envelope protocol over real a2a-sdk servers and clients."""
