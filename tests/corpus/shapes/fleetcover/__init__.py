"""Motor insurance pricing, split over modules as a real package is: the rating factors in
rating.py, quotes in quote.py (relative and absolute imports), a service class in portal.py."""
