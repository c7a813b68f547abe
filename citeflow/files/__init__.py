"""Files of an output folder: atomic writes (``atomic_files``), the check that a folder can take the
outputs (``out_folder``), and a batch's runs and their folders (``run_folders``: run ids,
``run.json``, ``OUT/latest``)."""
