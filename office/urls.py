from django.urls import path

from office import views

app_name = "office"
urlpatterns = [
    path("", views.office_home, name="home"),
    path("signup/", views.signup, name="signup"),
    path("start/", views.office_start_view, name="start"),
    path("employees/hire/", views.employee_hire_view, name="hire"),
    path("employees/<int:employee_id>/", views.employee_edit_view, name="employee"),
    path("projects/new/", views.project_create_view, name="project_new"),
    path("projects/<int:channel_id>/", views.project_edit_view, name="project"),
    path("language/", views.language_view, name="language"),
    path("cost/", views.cost_view, name="cost"),
    path("c/<int:channel_id>/", views.chat, name="chat"),
    path("search/", views.search_view, name="search"),
]
