"""One module per REST resource, as Connect has one JAX-RS resource class per path prefix."""
