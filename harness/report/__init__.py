"""Reports: one document model rendered as Markdown and HTML, and the plots."""
