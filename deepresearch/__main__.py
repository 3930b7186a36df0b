"""`python -m deepresearch` entry point."""

from deepresearch.cli import main

if __name__ == "__main__":
    main()
