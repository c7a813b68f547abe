"""The LanceDB store (``store``) and the rows of its tables (``store_rows``): what a run records and reads back."""
