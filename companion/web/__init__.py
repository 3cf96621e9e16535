"""The page's server: the Flask app, its routes by feature, the port it sees the table through."""
