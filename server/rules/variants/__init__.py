"""The rulesets, one module each. Importing this package registers nothing: `registry.py` lists them."""
